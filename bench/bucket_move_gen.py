# bench/bucket_move_gen.py N BASE — RESP SET commands for bench/bucket_move.sh
# RESP SET commands: N check-in users, ~50% of 366 days each (46 random bytes)
import os, sys, random
n = int(sys.argv[1]); base = int(sys.argv[2]); rnd = random.Random(7); out = sys.stdout.buffer
for i in range(n):
    k = b"checkin:%d" % (base + i)
    v = bytes(rnd.getrandbits(8) for _ in range(46))
    out.write(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n" % (len(k), k, len(v), v))
