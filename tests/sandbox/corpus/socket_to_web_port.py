# expect: error
import socket

conn = socket.create_connection(("127.0.0.1", WEB_PORT), timeout=1)
conn.sendall(b"GET / HTTP/1.0\r\n\r\n")
print(conn.recv(100))
