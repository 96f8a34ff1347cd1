"""Test inputs that come out bit for bit the same on every machine.

bench/gpu/prepare_checks.py computes the expected outputs here, on the CPU,
and bench/gpu/check.py recomputes the inputs on the GPU machine instead of
carrying them (the weights of the larger programs are tens of MiB). numpy's
random generators promise no stream across versions, and the two machines
run different numpys, so the values come from a fixed integer hash of each
element's index (SplitMix64's finalizer) in wrapping uint64 arithmetic.
"""

import hashlib

import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _mix(h):
    h = h ^ (h >> np.uint64(30))
    h = h * np.uint64(0xBF58476D1CE4E5B9)
    h = h ^ (h >> np.uint64(27))
    h = h * np.uint64(0x94D049BB133111EB)
    return h ^ (h >> np.uint64(31))


def uniform_input(shape, seed, std):
    """float32 values uniform in [-std*sqrt(3), std*sqrt(3)) (standard
    deviation `std`), one per element of `shape`, from input number `seed`."""
    n = int(np.prod(shape, dtype=np.int64))
    index = np.arange(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        h = _mix(index + np.uint64(seed + 1) * _GOLDEN)
    unit = (h >> np.uint64(11)).astype(np.float64) / float(1 << 53)
    return ((2.0 * unit - 1.0) * (std * 3.0 ** 0.5)).astype(
        np.float32).reshape(shape)


def program_inputs(shapes, scale=1.0):
    """One input per shape: matrices and larger with standard deviation 0.3,
    vectors (biases, gains) 1.0, both times `scale`."""
    return [uniform_input(s, i, scale * (0.3 if len(s) > 1 else 1.0))
            for i, s in enumerate(shapes)]


def fingerprint(arrays):
    """A short hash of `arrays`' bytes, to confirm that both machines drew
    the same inputs."""
    digest = hashlib.sha256()
    for a in arrays:
        digest.update(np.ascontiguousarray(a, np.float32).tobytes())
    return digest.hexdigest()[:16]
