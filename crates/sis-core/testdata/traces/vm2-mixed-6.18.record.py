# sisviz replay corpus, trace "vm2-pipes": for about one second on a 2-CPU VM,
#  - two request/response pairs over pipes (the client thinks 100 us between requests),
#  - one process computing in 2 ms bursts with 2 ms sleeps,
#  - one process waking every 500 us for a moment's work.
import os, time
END = time.time() + 1.0
def child(f):
    if os.fork() == 0:
        f(); os._exit(0)
def pair():
    a_r, a_w = os.pipe(); b_r, b_w = os.pipe()
    def server():
        while os.read(a_r, 1) == b'x': os.write(b_w, b'y')
    def client():
        while time.time() < END:
            os.write(a_w, b'x'); os.read(b_r, 1); time.sleep(0.0001)
        os.write(a_w, b'q')
    child(server); child(client)
def burner():
    while time.time() < END:
        t = time.time()
        while time.time() - t < 0.002: pass
        time.sleep(0.002)
def ticker():
    while time.time() < END:
        time.sleep(0.0005); sum(range(200))
pair(); pair(); child(burner); child(ticker)
try:
    while True: os.wait()
except ChildProcessError:
    pass
