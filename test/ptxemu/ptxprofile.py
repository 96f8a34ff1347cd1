"""Memory-traffic counters for the PTX emulator (test/ptxemu/ptxemu.py).

No GPU reaches CI, so the layout claims of the GPU pipeline (swizzled and
padded shared-memory tiles free of bank conflicts, coalesced 16-byte global
loads, each weight read once) would otherwise go unchecked until a device
run under Nsight Compute. A `Profile` passed to `ptxemu.launch` (or to
`run_plan.run_plan`) counts, per kernel and per instruction, what the
hardware's memory pipelines would see:

* **shared memory**: for every warp request, the wavefronts it takes. A
  request is cut into phases by access width, as the hardware serves them
  (4 bytes or less per thread: one phase of 32 lanes; 8 bytes: two of 16;
  16 bytes: four of 8). `ldmatrix` is one phase per 8x8 matrix (8 rows of
  16 bytes) and `cp.async` counts its shared-memory write like a 16-byte
  store. In a phase, the 4-byte words that share a bank (word mod 32) and
  differ each take one more wavefront; lanes reading the same word are a
  broadcast. The ideal is one wavefront per 32 distinct words of a phase;
  what exceeds it is bank conflicts (Nsight Compute's "excessive
  wavefronts").
* **global memory**: for every warp request, the 32-byte sectors it
  touches and the distinct bytes it uses (utilization = bytes / (32 x
  sectors)). Per launch, the distinct sectors read and written: the device
  memory traffic if the L2 cache held everything, a lower bound to compare
  with the cost model's device-memory bytes.
* **instructions**: warp instructions issued per PC (a warp counts once for
  an instruction some of its lanes run), grouped by class.

The counters need `np.unique` over every access, so a profiled launch runs
roughly twice as slowly; without a `Profile` nothing is counted.
"""

import numpy as np

__all__ = ["Profile"]

_WORD = 4
_BANKS = 32
_SECTOR = 32


def _phase_lanes(nbytes):
    """Lanes served together for a per-thread access of `nbytes`."""
    return 32 // max(1, min(nbytes, 16) // _WORD)


def _words(off, nbytes):
    """(threads, words) 4-byte word indices each access covers."""
    first = off // _WORD
    count = max(1, (nbytes + _WORD - 1) // _WORD)
    return first[:, None] + np.arange(count)


def shared_wavefronts(warp, lane, off, nbytes):
    """(wavefronts, ideal) of one shared-memory instruction executed by the
    threads (`warp`, `lane`) at byte offsets `off`: the sum over the
    requests' phases of the largest number of distinct words any bank
    serves, and of ceil(distinct words / 32)."""
    if len(off) == 0:
        return 0, 0
    lanes = _phase_lanes(nbytes)
    group = (warp.astype(np.int64) * (32 // lanes) + lane // lanes)
    words = _words(off.astype(np.int64), nbytes)
    g = np.broadcast_to(group[:, None], words.shape).reshape(-1)
    w = words.reshape(-1)
    # Distinct (group, word) pairs: same-word lanes are one broadcast.
    key = np.unique((g << 32) | w)
    g, w = key >> 32, key & 0xFFFFFFFF
    per_bank = np.unique((g << 5) | (w % _BANKS), return_counts=True)
    groups, starts = np.unique(per_bank[0] >> 5, return_index=True)
    worst = np.maximum.reduceat(per_bank[1], starts)
    distinct = np.bincount(np.searchsorted(groups, g), minlength=len(groups))
    ideal = (distinct + _BANKS - 1) // _BANKS
    return int(worst.sum()), int(ideal.sum())


def global_sectors(warp, off, nbytes):
    """(requests, sectors, distinct bytes) of one global-memory instruction
    executed by the threads of `warp` at byte offsets `off`."""
    if len(off) == 0:
        return 0, 0, 0
    warp = warp.astype(np.int64)
    first = off.astype(np.int64) // _SECTOR
    last = (off.astype(np.int64) + nbytes - 1) // _SECTOR
    span = int((last - first).max()) + 1
    sec = first[:, None] + np.arange(span)
    valid = sec <= last[:, None]
    keys = (np.broadcast_to(warp[:, None], sec.shape)[valid] << 40) | sec[valid]
    sectors = len(np.unique(keys))
    byte_keys = (np.broadcast_to(warp[:, None], (len(off), nbytes)) << 40) \
        | (off.astype(np.int64)[:, None] + np.arange(nbytes))
    distinct = len(np.unique(byte_keys))
    return len(np.unique(warp)), sectors, distinct


class _Site:
    """Counters of one instruction."""

    __slots__ = ("line", "text", "cls", "issued", "requests", "wavefronts",
                 "ideal", "sectors", "bytes")

    def __init__(self, line, text, cls):
        self.line, self.text, self.cls = line, text, cls
        self.issued = 0
        self.requests = self.wavefronts = self.ideal = 0
        self.sectors = self.bytes = 0


_SPACES = ("global", "shared", "local", "param", "const")


def _class_of(ins, space=None):
    if ins.base in ("ld", "st"):
        named = [m for m in ins.mods if m in _SPACES]
        return f"{ins.base}.{named[0] if named else space or 'generic'}"
    if ins.base == "cp":
        return "cp.async"
    return ins.base


class Profile:
    """Counters over the launches it is passed to; `kernels()` gives one
    summary per kernel (launches of one kernel add up), `report()` text."""

    def __init__(self):
        self._kernels = {}
        self._current = None

    # -- called by ptxemu --
    def begin_launch(self, fn, grid, block, dynamic_shared_bytes, memory_bytes):
        k = self._kernels.get(fn.name)
        if k is None:
            k = {"name": fn.name, "launches": 0, "grid": grid, "block": block,
                 "dynamic_shared_bytes": dynamic_shared_bytes, "sites": {},
                 "dram_read_bytes": 0, "dram_write_bytes": 0}
            self._kernels[fn.name] = k
        k["launches"] += 1
        nsec = memory_bytes // _SECTOR + 1
        self._current = (fn, k, np.zeros(nsec, bool), np.zeros(nsec, bool))

    def end_launch(self):
        fn, k, read, written = self._current
        k["dram_read_bytes"] += int(read.sum()) * _SECTOR
        k["dram_write_bytes"] += int(written.sum()) * _SECTOR
        self._current = None

    def _site(self, ins, space=None):
        k = self._current[1]
        site = k["sites"].get(ins.pc)
        if site is None:
            site = _Site(ins.line, ins.text, _class_of(ins, space))
            k["sites"][ins.pc] = site
        return site

    def issued(self, ins, idx, total_threads):
        """`ins` issued for the threads `idx` (None: all `total_threads`)."""
        site = self._site(ins)
        site.issued += total_threads // 32 if idx is None else \
            int(np.count_nonzero(np.bincount(idx >> 5)))

    def shared(self, ins, thr, off, nbytes):
        """Threads `thr` access `nbytes` each at shared offsets `off` (which
        keep every 128-byte line of a block's shared memory aligned)."""
        site = self._site(ins, "shared")
        if site.cls.endswith("generic"):
            site.cls = f"{ins.base}.shared"
        thr = np.asarray(thr)
        wf, ideal = shared_wavefronts(thr >> 5, thr & 31, np.asarray(off), nbytes)
        site.wavefronts += wf
        site.ideal += ideal

    def global_access(self, ins, thr, off, nbytes, store):
        """Threads `thr` read (or write) `nbytes` each at global offsets
        `off` (from a 256-byte aligned base)."""
        site = self._site(ins, "global")
        if site.cls.endswith("generic"):
            site.cls = f"{ins.base}.global"
        thr = np.asarray(thr)
        off = np.asarray(off).astype(np.int64)
        req, sectors, distinct = global_sectors(thr >> 5, off, nbytes)
        site.requests += req
        site.sectors += sectors
        site.bytes += distinct
        _, _, read, written = self._current
        bitmap = written if store else read
        first = off // _SECTOR
        last = (off + nbytes - 1) // _SECTOR
        bitmap[first] = True
        bitmap[last] = True

    # -- results --
    def kernels(self):
        """One dict per kernel, in launch order."""
        out = []
        for k in self._kernels.values():
            sites = [s for _, s in sorted(k["sites"].items())]
            by_class = {}
            for s in sites:
                by_class[s.cls] = by_class.get(s.cls, 0) + s.issued
            shared = [s for s in sites if s.wavefronts]
            glob = [s for s in sites if s.sectors]
            loads = [s for s in glob if not s.cls.startswith("st")]
            stores = [s for s in glob if s.cls.startswith("st")]
            out.append({
                "name": k["name"], "launches": k["launches"],
                "sites": [{"line": s.line, "text": s.text, "class": s.cls,
                           "issued": s.issued, "wavefronts": s.wavefronts,
                           "ideal": s.ideal, "sectors": s.sectors,
                           "bytes": s.bytes} for s in sites],
                "grid": list(k["grid"]), "block": list(k["block"]),
                "dynamic_shared_bytes": k["dynamic_shared_bytes"],
                "warp_instructions": sum(by_class.values()),
                "by_class": dict(sorted(by_class.items())),
                "shared_wavefronts": sum(s.wavefronts for s in shared),
                "shared_ideal_wavefronts": sum(s.ideal for s in shared),
                "shared_conflicts": [
                    {"line": s.line, "text": s.text, "class": s.cls,
                     "wavefronts": s.wavefronts, "ideal": s.ideal}
                    for s in shared if s.wavefronts > s.ideal],
                "global_load_sectors": sum(s.sectors for s in loads),
                "global_load_bytes": sum(s.bytes for s in loads),
                "global_store_sectors": sum(s.sectors for s in stores),
                "global_store_bytes": sum(s.bytes for s in stores),
                "global_uncoalesced": [
                    {"line": s.line, "text": s.text, "class": s.cls,
                     "sectors": s.sectors, "bytes": s.bytes,
                     "requests": s.requests}
                    for s in glob if s.bytes < s.sectors * _SECTOR],
                "dram_read_bytes": k["dram_read_bytes"],
                "dram_write_bytes": k["dram_write_bytes"],
            })
        return out

    def report(self):
        lines = []
        for k in self.kernels():
            lines.append(f"{k['name']}: {k['launches']} launch(es), grid {k['grid']}, "
                         f"block {k['block']}, {k['dynamic_shared_bytes']} B dynamic shared")
            classes = ", ".join(f"{c} {n}" for c, n in k["by_class"].items()
                                if c not in ("add", "mov", "setp", "bra", "mul", "mad", "and",
                                             "or", "xor", "shl", "shr", "cvt", "cvta",
                                             "selp"))
            lines.append(f"  warp instructions: {k['warp_instructions']} ({classes})")
            wf, ideal = k["shared_wavefronts"], k["shared_ideal_wavefronts"]
            excess = (wf - ideal) / wf if wf else 0.0
            lines.append(f"  shared: {wf} wavefronts, ideal {ideal} "
                         f"({100 * excess:.1f}% excessive)")
            for c in sorted(k["shared_conflicts"],
                            key=lambda c: c["ideal"] - c["wavefronts"])[:5]:
                lines.append(f"    line {c['line']}: {c['text']}: {c['wavefronts']} "
                             f"wavefronts, ideal {c['ideal']}")
            ls, lb = k["global_load_sectors"], k["global_load_bytes"]
            ss, sb = k["global_store_sectors"], k["global_store_bytes"]
            lines.append(f"  global loads: {ls} sectors, {lb} bytes used "
                         f"({100 * lb / max(ls * _SECTOR, 1):.0f}%); stores: {ss} sectors, "
                         f"{sb} bytes ({100 * sb / max(ss * _SECTOR, 1):.0f}%)")
            for c in k["global_uncoalesced"][:5]:
                lines.append(f"    line {c['line']}: {c['text']}: {c['bytes']} of "
                             f"{c['sectors'] * _SECTOR} bytes used")
            lines.append(f"  device memory (distinct sectors): read {k['dram_read_bytes']} B, "
                         f"written {k['dram_write_bytes']} B")
        return "\n".join(lines)
