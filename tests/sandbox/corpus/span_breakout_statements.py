# expect: error
y = max(1, 2); import shutil; shutil.rmtree(CANARY_DIR); open(OUTSIDE_FILE, "w").write("x")
