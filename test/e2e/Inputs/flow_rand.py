"""The random numbers of Flow programs (flow/program/rand.hpp), counter-based: a value is a
function of the seed, of where it is drawn (a stage's number and run and the element's
position, or the program's sequence) and of the draws taken there before it. Lets a test
recompute a program's data.

    r = Rand(seed)                    # the program's sequence (statements, loops, for stages)
    r = Rand(seed, stage=1)           # the first stage whose function draws rand(), first run
    r.at(i); r.rand(n); r.rand(n)     # the draws of its element i (generate: the index;
                                      # map, filter: the element's number in its input)
"""
M = (1 << 64) - 1
G = 0x9E3779B97F4A7C15


def mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)


class Rand:
    def __init__(self, seed=1, stage=0, run=0):
        self.key = mix((mix((mix((seed + G) & M) + G * (stage + 1)) & M) + G * (run + 1)) & M)
        self.at(0)

    def at(self, position):
        self.base, self.draws = mix((self.key + G * (position + 1)) & M), 0
        return self

    def rand(self, n=None):
        r = mix((self.base + G * (self.draws + 1)) & M)
        self.draws += 1
        return r if n is None else (r * n) >> 64
