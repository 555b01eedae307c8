"""Python reference of bfs.flow: the same random graph, BFS levels from node 0."""
import os
import sys
from collections import deque
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from flow_rand import Rand  # noqa: E402

nodes = int(sys.argv[1])
r = Rand(1, stage=1)  # the script's generate
adj = [[] for _ in range(nodes)]
for i in range(2 * nodes):
    r.at(i)
    s = r.rand(nodes)
    d = r.rand(nodes)
    adj[s].append(d)
    adj[d].append(s)
level = [0xFFFFFFFF] * nodes
level[0] = 0
q = deque([0])
while q:
    u = q.popleft()
    for w in adj[u]:
        if level[w] == 0xFFFFFFFF:
            level[w] = level[u] + 1
            q.append(w)
with open(sys.argv[2]) as f:
    got = [int(x) for x in f]
assert got == level, [(i, a, b) for i, (a, b) in enumerate(zip(got, level)) if a != b][:5]
print("reached %d of %d nodes" % (sum(1 for x in level if x != 0xFFFFFFFF), nodes))
