# expect: error
import shutil

shutil.rmtree(CANARY_DIR)  # world-writable on the host, so only a read-only view protects it
