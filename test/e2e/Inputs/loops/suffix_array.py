"""suffix_array.py DIR: a 3000-byte text over a small alphabet with a long repeat (so
prefix doubling needs many rounds), and its suffix array by naive sorting of the
suffixes."""
import os
import random
import sys

os.chdir(sys.argv[1])
random.seed(9)
n = 3000
text = bytes(random.choice(b'ab') if random.random() < 0.7 else random.choice(b'abcd') for _ in range(n))
text = text[:1000] + text[:1000] + text[2000:]
open('text.bin', 'wb').write(text)
with open('expected_sa.txt', 'w') as f:
    f.write(''.join('%d\n' % i for i in sorted(range(n), key=lambda i: text[i:])))
