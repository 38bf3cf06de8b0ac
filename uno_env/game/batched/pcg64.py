"""numpy's PCG64 bit generator, bit for bit, for a batch of games held as arrays.

Every game of the batched engine owns one PCG64 stream, stored as six ``uint64`` words
per game (``RNG_WORDS``): the 128-bit LCG state (high, low), the 128-bit increment (high,
low), and numpy's buffered half word (``has_uint32``, ``uinteger``). The kernels below
reproduce exactly what numpy does with a ``Generator(PCG64)``:

=====================  ==================================================================
kernel                 numpy equivalent (numpy/random/src)
=====================  ==================================================================
``next64``             ``pcg64_next64``: LCG step, then the XSL-RR output of the new state
``next32``             ``pcg64_next32``: low half now, high half buffered for the next call
``interval(max)``      ``random_interval``: smallest bit mask >= max, rejection sampling
``bounded(rng)``       ``buffered_bounded_lemire_uint32``: ``Generator.integers(rng + 1)``
``shuffle``            ``Generator.shuffle`` (1-d array or list): Fisher-Yates from the end,
                       ``j = random_interval(i)``
=====================  ==================================================================

So a game seeded from ``np.random.default_rng(seed)`` (``words_from_generator``) draws its
dealer, shuffles its deck and reshuffles its DRAW pile exactly as
:class:`uno_env.game.engine.Engine` does with that generator, and ``generator_state``
turns the words back into numpy's state dict (tests compare them after every step).
"""

from __future__ import annotations

import numpy as np

from uno_env.game.batched._jit import njit

RNG_WORDS = 6
S_HI, S_LO, I_HI, I_LO, HAS32, U32 = range(RNG_WORDS)

_MULT_HI = np.uint64(2549297995355413924)  # PCG_DEFAULT_MULTIPLIER_128 (numpy pcg64.h)
_MULT_LO = np.uint64(4865540595714422341)
_M32 = np.uint64(0xFFFFFFFF)
_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U32 = np.uint64(32)
_U58 = np.uint64(58)
_U63 = np.uint64(63)
_U64 = np.uint64(64)
_MASK64 = (1 << 64) - 1


@njit
def _mul_hi(a, b):
    """High 64 bits of the 128-bit product of two uint64."""
    a_lo = a & _M32
    a_hi = a >> _U32
    b_lo = b & _M32
    b_hi = b >> _U32
    p0 = a_lo * b_lo
    p1 = a_lo * b_hi
    p2 = a_hi * b_lo
    p3 = a_hi * b_hi
    mid = (p0 >> _U32) + (p1 & _M32) + (p2 & _M32)
    return p3 + (p1 >> _U32) + (p2 >> _U32) + (mid >> _U32)


@njit
def next64(rng, b):
    """The next 64-bit output of game ``b``'s stream."""
    hi = rng[b, S_HI]
    lo = rng[b, S_LO]
    new_lo = lo * _MULT_LO
    new_hi = _mul_hi(lo, _MULT_LO) + hi * _MULT_LO + lo * _MULT_HI
    low = new_lo + rng[b, I_LO]
    carry = _U1 if low < new_lo else _U0
    high = new_hi + rng[b, I_HI] + carry
    rng[b, S_HI] = high
    rng[b, S_LO] = low
    xsl = high ^ low
    rot = high >> _U58
    return (xsl >> rot) | (xsl << ((_U64 - rot) & _U63))


@njit
def next32(rng, b):
    """The next 32-bit output (as uint64), with numpy's buffering of the high half."""
    if rng[b, HAS32] != _U0:
        rng[b, HAS32] = _U0
        return rng[b, U32]
    v = next64(rng, b)
    rng[b, HAS32] = _U1
    rng[b, U32] = v >> _U32
    return v & _M32


@njit
def interval(rng, b, mx):
    """A uniform integer in ``0..mx`` (``mx < 2**32``), as numpy's ``random_interval``."""
    if mx == 0:
        return 0
    m = np.uint64(mx)
    mask = m
    mask |= mask >> np.uint64(1)
    mask |= mask >> np.uint64(2)
    mask |= mask >> np.uint64(4)
    mask |= mask >> np.uint64(8)
    mask |= mask >> np.uint64(16)
    v = next32(rng, b) & mask
    while v > m:
        v = next32(rng, b) & mask
    return np.int64(v)


@njit
def bounded(rng, b, high):
    """A uniform integer in ``0..high-1`` as ``Generator.integers(high)`` (int64, high <= 2**32-1)."""
    excl = np.uint64(high)
    if excl == _U1:
        return 0
    m = next32(rng, b) * excl
    leftover = m & _M32
    if leftover < excl:
        threshold = (_M32 - (excl - _U1)) % excl
        while leftover < threshold:
            m = next32(rng, b) * excl
            leftover = m & _M32
    return np.int64(m >> _U32)


@njit
def shuffle(arr, b, length, rng):
    """Shuffle ``arr[b, :length]`` in place as ``Generator.shuffle`` shuffles a list."""
    for i in range(length - 1, 0, -1):
        j = interval(rng, b, i)
        t = arr[b, i]
        arr[b, i] = arr[b, j]
        arr[b, j] = t


# ---------------------------------------------------------------------- numpy <-> words
def words_from_state(state: dict) -> np.ndarray:
    """The six words of a ``PCG64`` state dict (``bit_generator.state``)."""
    if state.get("bit_generator") != "PCG64":
        raise ValueError(f"the batched engine reproduces PCG64 streams only, got {state.get('bit_generator')!r}")
    s, inc = int(state["state"]["state"]), int(state["state"]["inc"])
    return np.array([s >> 64, s & _MASK64, inc >> 64, inc & _MASK64,
                     int(state["has_uint32"]), int(state["uinteger"])], np.uint64)


def words_from_generator(gen: np.random.Generator) -> np.ndarray:
    """The words of a numpy ``Generator(PCG64)`` (``np.random.default_rng(seed)``), copied."""
    if not isinstance(gen, np.random.Generator):
        raise ValueError(f"expected a numpy Generator, got {type(gen).__name__}")
    return words_from_state(gen.bit_generator.state)


def words_from_seed(seed) -> np.ndarray:
    """The words of ``np.random.default_rng(seed)``."""
    return words_from_state(np.random.PCG64(seed).state)


def generator_state(words: np.ndarray) -> dict:
    """numpy's ``PCG64`` state dict of six words (``Generator.bit_generator.state = ...``)."""
    w = [int(x) for x in words]
    return {"bit_generator": "PCG64", "state": {"state": (w[S_HI] << 64) | w[S_LO],
                                                "inc": (w[I_HI] << 64) | w[I_LO]},
            "has_uint32": w[HAS32], "uinteger": w[U32]}
