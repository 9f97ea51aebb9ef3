# expect: passed
# stdout-lacks: root:
result = __import__('os').system('cat /etc/shadow; id; touch /var/tmp/codecloze-pwned; kill -9 -1')
