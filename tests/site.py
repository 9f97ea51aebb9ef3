"""The pages the site-wide browser checks (accessibility, offline) walk."""

DRILL = "mlm-online-softmax"
MASK = f"/s/{DRILL}/drill?rate=30&seed=1"
SNIPPETS = (
    "ex1-attention-memory",
    "ex2-online-softmax",
    "ex3-blocked-matmul",
    "ex4-flash-forward",
    "ex5-flash-backward",
    "mlm-blocked-attention",
    "mlm-flash-forward",
    "mlm-online-softmax",
)
