# expect: error
for i in range(100_000):
    with open(f"f{i}.txt", "w") as f:
        f.write("x")
