# expect: error
# stdout-lacks: root:
print(open("/etc/shadow").read())
