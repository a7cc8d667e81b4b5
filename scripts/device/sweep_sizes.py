#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Draw the sizes of a dense 1-D sweep, fresh each run.

The goals are set for every N of the form 2^a 3^b 5^c 7^d from 64 to 2^20
(1,251 sizes) and every other N up to 2^20, so a fixed list could be tuned
to; instead each run draws its own: the smooth range is cut into equal
steps of log2(N) and one smooth N is drawn from each, and the other sizes
are drawn log-uniformly among the sizes with a prime factor above 7 (primes
and Bluestein sizes among them). The seed is printed, so a run's list can be
drawn again. Output is the sweep list format of gpu-run.sh (whitespace
separated sizes, '#' comments).

    sweep_sizes.py [--seed S] [--smooth 100] [--other 24] [--low 64] [--high 1048576]
"""
import argparse
import math
import random
import sys


def smooth(n):
    for p in (2, 3, 5, 7):
        while n % p == 0:
            n //= p
    return n == 1


def draw(seed, smooth_count, other_count, low, high):
    rng = random.Random(seed)
    candidates = [n for n in range(low, high + 1) if smooth(n)]
    lo, hi = math.log2(low), math.log2(high)
    smooth_sizes = []
    for k in range(smooth_count):
        a = lo + (hi - lo) * k / smooth_count
        b = lo + (hi - lo) * (k + 1) / smooth_count
        last = k == smooth_count - 1
        step = [n for n in candidates if a <= math.log2(n) and (math.log2(n) < b or last)]
        if step:
            smooth_sizes.append(rng.choice(step))
    other = set()
    while len(other) < other_count:
        n = int(round(2 ** rng.uniform(math.log2(2), hi)))
        if n <= high and not smooth(n):
            other.add(n)
    return sorted(set(smooth_sizes)), sorted(other)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, help="the draw's seed (default: a fresh one, printed)")
    parser.add_argument("--smooth", type=int, default=100, help="smooth sizes, one per log2 step (default 100)")
    parser.add_argument("--other", type=int, default=24, help="sizes with a prime factor above 7 (default 24)")
    parser.add_argument("--low", type=int, default=64, help="smallest smooth size (default 64)")
    parser.add_argument("--high", type=int, default=1 << 20, help="largest size (default 2^20)")
    args = parser.parse_args()
    if not 2 <= args.low < args.high:
        parser.error(f"need 2 <= --low < --high, got {args.low} and {args.high}")
    if args.smooth < 1 or args.other < 0:
        parser.error("--smooth must be at least 1 and --other at least 0")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    smooth_sizes, other = draw(seed, args.smooth, args.other, args.low, args.high)
    print(f"# drawn by scripts/device/sweep_sizes.py --seed {seed} --smooth {args.smooth} "
          f"--other {args.other} --low {args.low} --high {args.high}")
    print("# smooth")
    print(" ".join(map(str, smooth_sizes)))
    print("# other")
    print(" ".join(map(str, other)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
