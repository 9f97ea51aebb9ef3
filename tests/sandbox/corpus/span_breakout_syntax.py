# expect: error
# line: 3
y = max(1, 2)); __import__("os").system("touch /var/tmp/codecloze-pwned")
