"""The random numbers of Flow programs (flow/program/rand.hpp): xoshiro256** seeded by
splitmix64, rand(n) by Lemire's multiply-shift. Lets a test recompute a program's data."""
M = (1 << 64) - 1


def rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & M


class Rand:
    def __init__(self, seed=1):
        x, self.s = seed & M, []
        for _ in range(4):
            x = (x + 0x9E3779B97F4A7C15) & M
            z = x
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
            self.s.append(z ^ (z >> 31))

    def rand(self, n=None):
        s = self.s
        r = (rotl((s[1] * 5) & M, 7) * 9) & M
        t = (s[1] << 17) & M
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        return r if n is None else (r * n) >> 64
