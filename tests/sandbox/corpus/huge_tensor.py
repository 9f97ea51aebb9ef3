# expect: memory
import torch

x = torch.ones(5 * 10**9)  # 20 GB of float32, every page touched
