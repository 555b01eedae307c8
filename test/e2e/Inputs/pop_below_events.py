"""pop_below_events.flow's events by Python's heapq (the reference): the labels in the
order the batches take them. Usage: pop_below_events.py HORIZON OUT"""
import heapq
import sys

horizon, out = int(sys.argv[1]), sys.argv[2]
q = [(i % 5, i) for i in range(3000)]
heapq.heapify(q)
labels, steps = [], 0
while q:
    t = q[0][0]
    batch = []
    while q and q[0][0] < t + 1:
        batch.append(heapq.heappop(q))
    for time, id_ in batch:
        labels.append(f"{time}-{id_}")
        if time + 1 < horizon and id_ % 3 != 0:
            heapq.heappush(q, (time + 1 + id_ % 4, id_ // 2 + time))
    steps += 1
open(out, "w").write("".join(line + "\n" for line in labels))
print(f"{len(labels)} events in {steps} steps")
