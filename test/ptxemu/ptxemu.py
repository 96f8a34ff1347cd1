"""A CPU emulator of the PTX subset mlsopt's GPU pipeline emits (numpy only).

A test tool, not part of the mlsopt package: it runs the kernels of
`mlsopt-translate --emit-ptx` on emulated device memory so that their numbers
can be checked without a GPU (test/ptxemu/run_plan.py replays a launch plan
with it).

Model
-----
* A launch runs vectorized: every register is a numpy array over all threads
  of a chunk of blocks (raw bits: uint16/uint32/uint64, bool for predicates;
  the instruction type says how to read them). Each thread has a program
  counter; the scheduler repeatedly runs the instruction of lowest rank among
  the runnable threads, for all threads at it (guard applied per thread).
  Ranks order basic blocks topologically along the CFG without back edges,
  so a warp reconverges where its paths join, even where the text puts a
  loop's latch above its header. By default (`schedule="warps-descending"`,
  or `"warps-ascending"`) the warps of a block run one at a time, each until
  it waits at a barrier or exits, so that a read a missing barrier should
  have ordered sees another warp's data too early or too late;
  `"lockstep"` runs all warps together. Warp-collective instructions
  (shfl.sync, ldmatrix, mma.sync) check that all 32 lanes of every warp
  involved execute them together and raise otherwise.
* bar.sync waits until every thread of the block that has not exited arrives
  (blocks are independent); a state where no thread can run and some have not
  exited is a deadlock, and raises.
* Global memory is one byte array behind fake 64-bit device addresses
  (`GlobalMemory`); bytes outside an allocation are invalid and any access to
  them raises, naming kernel and PC, as does a misaligned access. Shared
  memory is per block: static `.shared` symbols, then the dynamic
  (`.extern .shared`) one, bounded by the launch's dynamic size; it starts
  filled with 0xFF bytes (NaN in every float type) so that reading shared
  memory nobody wrote shows.
* cp.async does not write shared memory when issued: the copy (source read
  at issue) is queued in the thread's current group; commit_group closes the
  group and wait_group N completes all the thread's committed groups but the
  newest N (wait_all: all). Pending copies complete when the thread exits.
  So a missing wait or commit leaves stale shared memory, which shows.
* Arithmetic: f32/f16/bf16 operations are computed in float64 and rounded once
  to the destination type with the instruction's rounding mode (exact for
  add/sub/mul/div/sqrt; fma may double-round in rare cases). `.approx`
  functions (ex2, lg2, rsqrt, rcp, sin, cos, tanh) are float64 math rounded
  to the type. mma.sync computes A@B+C in float64 and rounds to f32; tf32
  operands are truncated to 10 mantissa bits as the tensor cores do.

Any opcode, modifier or operand form outside the implemented subset raises
`PTXEmulatorError` naming it; nothing is skipped silently.
"""

import re

import numpy as np

__all__ = ["PTXEmulatorError", "Module", "GlobalMemory", "parse_ptx",
           "launch"]


class PTXEmulatorError(RuntimeError):
    pass


# ---------------------------------------------------------------------------
# Types
# ---------------------------------------------------------------------------

_WIDTH = {"pred": 1, "b8": 8, "u8": 8, "s8": 8, "b16": 16, "u16": 16,
          "s16": 16, "f16": 16, "bf16": 16, "b32": 32, "u32": 32, "s32": 32,
          "f32": 32, "f16x2": 32, "bf16x2": 32, "tf32": 32, "b64": 64,
          "u64": 64, "s64": 64, "f64": 64, "b128": 128}
_TYPES = set(_WIDTH)
_UDT = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
_SDT = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}
_FDT = {16: np.float16, 32: np.float32, 64: np.float64}
_FLOAT = {"f16", "bf16", "f32", "f64", "f16x2", "bf16x2", "tf32"}
_SPACES = {"global", "shared", "param", "local", "const"}

# Fake address windows: global allocations live at GLOBAL_BASE and up;
# generic addresses of shared and local memory (cvta) at these windows.
GLOBAL_BASE = 0x10_0000_0000
SHARED_WINDOW = 0x0F00_0000_0000
LOCAL_WINDOW = 0x0E00_0000_0000
WINDOW_SIZE = 1 << 32


def _width(ty):
    return _WIDTH[ty]


def _signed(ty):
    return ty[0] == "s"


def _bits_to_f64(bits, ty):
    """Raw bits (unsigned array) of scalar float type `ty` as float64."""
    bits = np.asarray(bits)
    if ty == "f32" or ty == "tf32":
        return bits.astype(np.uint32, copy=False).view(np.float32).astype(np.float64)
    if ty == "f16":
        return bits.astype(np.uint16, copy=False).view(np.float16).astype(np.float64)
    if ty == "bf16":
        return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)
    if ty == "f64":
        return bits.astype(np.uint64, copy=False).view(np.float64)
    raise PTXEmulatorError(f"not a scalar float type: {ty}")


def _round_f32(x, mode="rn"):
    x = np.asarray(x, np.float64)
    r = x.astype(np.float32)
    if mode in ("rn", None):
        return r
    r64 = r.astype(np.float64)
    if mode == "rz":
        fix = np.abs(r64) > np.abs(x)
        return np.where(fix, np.nextafter(r, np.float32(0)), r)
    if mode == "rm":
        return np.where(r64 > x, np.nextafter(r, np.float32(-np.inf)), r)
    if mode == "rp":
        return np.where(r64 < x, np.nextafter(r, np.float32(np.inf)), r)
    raise PTXEmulatorError(f"rounding mode .{mode}")


def _f64_to_bf16_bits(x, mode="rn"):
    x = np.asarray(x, np.float64)
    # Round to f32 toward zero, make the result's last bit sticky, then round
    # to bf16: correct single rounding from float64.
    t = _round_f32(x, "rz")
    bits = t.view(np.uint32).copy()
    bits |= (t.astype(np.float64) != x).astype(np.uint32)
    nan = np.isnan(x)
    if mode == "rn":
        lsb = (bits >> np.uint32(16)) & np.uint32(1)
        r = ((bits.astype(np.uint64) + np.uint64(0x7FFF) + lsb) >> np.uint64(16)).astype(np.uint16)
    elif mode == "rz":
        r = (bits >> np.uint32(16)).astype(np.uint16)
    else:
        raise PTXEmulatorError(f"bf16 rounding mode .{mode}")
    return np.where(nan, np.uint16(0x7FFF), r).astype(np.uint16)


def _f64_to_bits(x, ty, mode="rn", sat=False, ftz=False):
    x = np.asarray(x, np.float64)
    if sat:
        x = np.where(np.isnan(x), 0.0, np.clip(x, 0.0, 1.0))
    if ty == "f32":
        r = _round_f32(x, mode)
        if ftz:
            r = np.where(np.abs(r) < np.float32(1.1754943508222875e-38),
                         np.float32(0) * np.sign(r), r).astype(np.float32)
        return r.view(np.uint32)
    if ty == "f64":
        return x.view(np.uint64)
    if ty == "f16":
        r = x.astype(np.float16)
        if mode not in ("rn", None):
            r64 = r.astype(np.float64)
            if mode == "rz":
                r = np.where(np.abs(r64) > np.abs(x), np.nextafter(r, np.float16(0)), r)
            elif mode == "rm":
                r = np.where(r64 > x, np.nextafter(r, np.float16(-np.inf)), r)
            elif mode == "rp":
                r = np.where(r64 < x, np.nextafter(r, np.float16(np.inf)), r)
            else:
                raise PTXEmulatorError(f"rounding mode .{mode}")
            r = np.asarray(r, np.float16)
        return r.view(np.uint16)
    if ty == "bf16":
        return _f64_to_bf16_bits(x, mode or "rn")
    raise PTXEmulatorError(f"not a float type: {ty}")


def _ftz_in(x, ty):
    if ty == "f32":
        return np.where(np.abs(x) < 1.1754943508222875e-38, 0.0 * x, x)
    return x


def _pack2(lo, hi, w):
    dt = _UDT[2 * w]
    return (np.asarray(lo).astype(dt) | (np.asarray(hi).astype(dt) << dt(w))).astype(dt)


def _unpack2(bits, w):
    dt = _UDT[w]
    big = _UDT[2 * w]
    bits = np.asarray(bits).astype(big, copy=False)
    return (bits & big((1 << w) - 1)).astype(dt), (bits >> big(w)).astype(dt)


# ---------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------

class Instr:
    __slots__ = ("text", "line", "guard", "guard_neg", "op", "parts", "base",
                 "types", "mods", "operands", "target", "kind", "fn", "pc")

    def __init__(self, text, line, guard, guard_neg, op, operands):
        self.text = text
        self.line = line
        self.guard = guard
        self.guard_neg = guard_neg
        self.op = op
        self.parts = op.split(".")
        self.base = self.parts[0]
        self.types = [p for p in self.parts[1:] if p in _TYPES]
        self.mods = [p for p in self.parts[1:] if p not in _TYPES]
        self.operands = operands
        self.target = None
        self.kind = None
        self.fn = None
        self.pc = None


class Function:
    def __init__(self, name, is_entry):
        self.name = name
        self.is_entry = is_entry
        self.params = []          # (name, type, size, align)
        self.param_offsets = {}
        self.param_size = 0
        self.reg_types = {}       # exact name -> type
        self.reg_prefix_types = {}  # prefix -> type (%r<N>)
        self.instrs = []
        self.labels = {}
        self.local_symbols = {}   # name -> (offset, size)
        self.local_size = 0
        self.shared_decls = []    # function-scope .shared
        self.compiled = False

    def reg_type(self, name):
        t = self.reg_types.get(name)
        if t is not None:
            return t
        m = re.match(r"(%[A-Za-z_$][A-Za-z_$]*?)(\d+)$", name)
        if m and m.group(1) in self.reg_prefix_types:
            return self.reg_prefix_types[m.group(1)]
        raise PTXEmulatorError(f"{self.name}: register {name} is not declared")


class SharedSymbol:
    def __init__(self, name, size, align, extern):
        self.name = name
        self.size = size
        self.align = align
        self.extern = extern


class GlobalSymbol:
    def __init__(self, name, size, align, data, space):
        self.name = name
        self.size = size
        self.align = align
        self.data = data
        self.space = space


def _strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def _split_operands(s):
    out, depth, cur = [], 0, []
    for ch in s:
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


_DECL_RE = re.compile(
    r"^(?P<vis>(?:\.visible|\.extern|\.weak)\s+)*\.(?P<space>shared|global|const|local)\s+"
    r"(?P<rest>.*)$", re.S)


def _parse_var_decl(stmt):
    """`.shared .align 16 .b8 name[123] = {...}` -> (space, extern, name,
    size, align, data)."""
    m = _DECL_RE.match(stmt)
    if not m:
        return None
    extern = "extern" in (m.group("vis") or "") or stmt.startswith(".extern")
    rest = m.group("rest")
    init = None
    if "=" in rest:
        rest, init = rest.split("=", 1)
    align = 1
    am = re.search(r"\.align\s+(\d+)", rest)
    if am:
        align = int(am.group(1))
    tm = re.search(r"\.(b8|u8|s8|b16|u16|s16|f16|b32|u32|s32|f32|b64|u64|s64|f64)\s+([\w$.]+)\s*((?:\[\d*\])*)", rest)
    if not tm:
        raise PTXEmulatorError(f"cannot parse declaration: {stmt}")
    ty, name, dims = tm.group(1), tm.group(2), tm.group(3)
    esize = _WIDTH[ty] // 8
    align = max(align, esize) if not am else align
    count = 1
    unsized = False
    for d in re.findall(r"\[(\d*)\]", dims):
        if d == "":
            unsized = True
        else:
            count *= int(d)
    size = 0 if unsized else count * esize
    data = None
    if init is not None:
        vals = [v.strip() for v in init.strip().strip("{}").split(",") if v.strip()]
        arr = np.zeros(count, _UDT[_WIDTH[ty]] if ty[0] != "f" else _FDT[_WIDTH[ty]])
        for i, v in enumerate(vals):
            if ty[0] == "f":
                arr[i] = float(v) if not re.match(r"0[fdFD]", v) else np.asarray(
                    int(v[2:], 16), _UDT[_WIDTH[ty]]).view(_FDT[_WIDTH[ty]])
            else:
                arr[i] = int(v, 0) & ((1 << _WIDTH[ty]) - 1)
        data = arr.view(np.uint8).copy()
    return m.group("space"), extern or unsized, name, size, align, data


class Module:
    """A parsed PTX module (one `gpu.binary`)."""

    def __init__(self, text):
        self.text = text
        self.functions = {}
        self.shared = []          # SharedSymbol, in declaration order
        self.globals = []         # GlobalSymbol (.global / .const)
        self._parse(text)

    def _parse(self, text):
        text = _strip_comments(text)
        # Header directives end at the line, not at ';'.
        text = re.sub(r"^\s*\.(version|target|address_size)\b[^\n]*$", "", text, flags=re.M)
        pos = 0
        n = len(text)
        # Module-level statements end at ';' except function definitions,
        # which end with their body's closing brace.
        while pos < n:
            m = re.compile(r"\s*").match(text, pos)
            pos = m.end()
            if pos >= n:
                break
            fm = re.compile(
                r"(?:\.visible\s+|\.weak\s+|\.extern\s+)*\.(entry|func)\s*(\([^)]*\)\s*)?([\w$]+)\s*(\([^)]*\))?",
                re.S).match(text, pos)
            if fm:
                kind, name, params = fm.group(1), fm.group(3), fm.group(4)
                j = fm.end()
                # Skip performance directives up to the body or ';'.
                k = j
                while k < n and text[k] not in "{;":
                    k += 1
                if k < n and text[k] == ";":
                    pos = k + 1   # a declaration (prototype) only
                    continue
                depth = 0
                end = k
                while end < n:
                    if text[end] == "{":
                        depth += 1
                    elif text[end] == "}":
                        depth -= 1
                        if depth == 0:
                            break
                    end += 1
                body = text[k + 1:end]
                line0 = text.count("\n", 0, k) + 1
                fn = Function(name, kind == "entry")
                if kind == "func" and fm.group(2):
                    fn.has_return = True
                self._parse_params(fn, params or "")
                self._parse_body(fn, body, line0)
                self.functions[name] = fn
                pos = end + 1
                continue
            k = text.find(";", pos)
            if k < 0:
                break
            stmt = " ".join(text[pos:k].split())
            pos = k + 1
            if re.match(r"\.(version|target|address_size|file|loc|section)\b", stmt):
                continue
            d = _parse_var_decl(stmt)
            if d is None:
                raise PTXEmulatorError(f"unsupported module-level statement: {stmt}")
            space, extern, name, size, align, data = d
            if space == "shared":
                self.shared.append(SharedSymbol(name, size, align, extern))
            elif space in ("global", "const"):
                self.globals.append(GlobalSymbol(name, size, align, data, space))
            else:
                raise PTXEmulatorError(f"unsupported module-level {space} declaration: {stmt}")

    def _parse_params(self, fn, params):
        params = params.strip().strip("()")
        off = 0
        for p in [q.strip() for q in params.split(",") if q.strip()]:
            p = " ".join(p.split())
            m = re.match(r"\.param\s+(.*)$", p)
            if not m:
                raise PTXEmulatorError(f"{fn.name}: cannot parse parameter {p}")
            rest = m.group(1)
            am = re.search(r"\.align\s+(\d+)", rest)
            tm = re.search(r"\.(b8|u8|s8|b16|u16|s16|f16|b32|u32|s32|f32|b64|u64|s64|f64)\s+(?:\.ptr\s+(?:\.\w+\s+)*(?:\.align\s+\d+\s+)?)?([A-Za-z_$][\w$]*)\s*(\[\d+\])?", rest)
            if not tm:
                raise PTXEmulatorError(f"{fn.name}: cannot parse parameter {p}")
            ty, name, arr = tm.group(1), tm.group(2), tm.group(3)
            size = _WIDTH[ty] // 8 * (int(arr[1:-1]) if arr else 1)
            align = _WIDTH[ty] // 8
            if ".ptr" not in rest and am:
                align = int(am.group(1))
            off = (off + align - 1) // align * align
            fn.params.append((name, ty, size, align))
            fn.param_offsets[name] = off
            off += size
        fn.param_size = off

    def _parse_body(self, fn, body, line0):
        # Statements end at ';'; labels at ':'; scope braces are ignored.
        pos = 0
        n = len(body)
        label_re = re.compile(r"\s*([$%\w.]+)\s*:(?!:)")
        while pos < n:
            while pos < n and (body[pos].isspace() or body[pos] in "{}"):
                pos += 1
            if pos >= n:
                break
            lm = label_re.match(body, pos)
            if lm and not body[pos] == "@":
                fn.labels[lm.group(1)] = len(fn.instrs)
                pos = lm.end()
                continue
            k = body.find(";", pos)
            if k < 0:
                raise PTXEmulatorError(f"{fn.name}: unterminated statement: {body[pos:pos+80]!r}")
            raw = body[pos:k]
            line = line0 + body.count("\n", 0, pos)
            pos = k + 1
            stmt = " ".join(raw.split())
            if not stmt:
                continue
            if stmt.startswith("."):
                self._parse_directive(fn, stmt)
                continue
            guard, neg = None, False
            gm = re.match(r"@(!?)(%[\w$]+)\s+(.*)$", stmt)
            if gm:
                neg = gm.group(1) == "!"
                guard = gm.group(2)
                stmt = gm.group(3)
            om = re.match(r"([\w.:]+)\s*(.*)$", stmt)
            op, rest = om.group(1), om.group(2)
            fn.instrs.append(Instr(stmt, line, guard, neg, op, _split_operands(rest)))

    def _parse_directive(self, fn, stmt):
        if stmt.startswith(".reg"):
            m = re.match(r"\.reg\s+(?:\.v\d\s+)?\.(\w+)\s+(.*)$", stmt)
            if not m:
                raise PTXEmulatorError(f"{fn.name}: cannot parse {stmt}")
            ty = m.group(1)
            for name in [x.strip() for x in m.group(2).split(",")]:
                pm = re.match(r"(%[\w$]+)<(\d+)>$", name)
                if pm:
                    fn.reg_prefix_types[pm.group(1)] = ty
                else:
                    # Scope braces are ignored: a register a nested scope
                    # declares (LLVM's `{ .reg .b16 tmp; ... }`, one per
                    # use) is one function-wide register; the scopes may
                    # share it only if they agree on its type.
                    if fn.reg_types.get(name, ty) != ty:
                        raise PTXEmulatorError(
                            f"{fn.name}: register {name} declared as .{fn.reg_types[name]} "
                            f"and .{ty} in different scopes")
                    fn.reg_types[name] = ty
            return
        # Whole words: `.local` is a declaration, not a `.loc`.
        if re.match(r"\.(loc|pragma|maxntid|reqntid|minnctapersm|maxnreg|file)\b", stmt):
            return
        d = _parse_var_decl(stmt)
        if d is not None:
            space, extern, name, size, align, data = d
            if space == "shared":
                self.shared.append(SharedSymbol(name, size, align, extern))
                return
            if space == "local":
                off = (fn.local_size + align - 1) // align * align
                fn.local_symbols[name] = (off, size)
                fn.local_size = off + size
                return
            if space in ("global", "const"):
                self.globals.append(GlobalSymbol(name, size, align, data, space))
                return
        raise PTXEmulatorError(f"{fn.name}: unsupported directive {stmt}")


_MODULE_CACHE = {}


def parse_ptx(text):
    """A parsed Module, cached by text."""
    mod = _MODULE_CACHE.get(text)
    if mod is None:
        mod = Module(text)
        _MODULE_CACHE[text] = mod
    return mod


# ---------------------------------------------------------------------------
# Global memory
# ---------------------------------------------------------------------------

class GlobalMemory:
    """Device memory: allocations at fake addresses in one byte array; the
    bytes between allocations are invalid (any access to them raises)."""

    ALIGN = 256
    GAP = 256

    def __init__(self, capacity=1 << 20):
        self.data = np.zeros(capacity, np.uint8)
        self.valid = np.zeros(capacity, bool)
        self.top = self.GAP
        self.allocations = []   # (addr, size, label)
        self.symbols = {}       # (module id, symbol name) -> addr

    def _grow(self, need):
        cap = len(self.data)
        if need <= cap:
            return
        new = max(need, 2 * cap)
        new = (new + 15) // 16 * 16
        d = np.zeros(new, np.uint8)
        d[:cap] = self.data
        v = np.zeros(new, bool)
        v[:cap] = self.valid
        self.data, self.valid = d, v

    def alloc(self, size, label="", fill=None):
        off = (self.top + self.ALIGN - 1) // self.ALIGN * self.ALIGN
        end = off + max(int(size), 1)
        self._grow(end + self.GAP + 16)
        self.valid[off:off + size] = True
        if fill is not None:
            self.data[off:off + size] = fill
        self.top = end + self.GAP
        addr = GLOBAL_BASE + off
        self.allocations.append((addr, int(size), label))
        return addr

    def write(self, addr, data):
        b = np.frombuffer(bytes(data), np.uint8) if not isinstance(data, np.ndarray) \
            else np.ascontiguousarray(data).view(np.uint8).reshape(-1)
        off = addr - GLOBAL_BASE
        if not self.valid[off:off + len(b)].all():
            raise PTXEmulatorError(f"host write outside an allocation at {addr:#x}")
        self.data[off:off + len(b)] = b

    def read(self, addr, size):
        off = addr - GLOBAL_BASE
        return self.data[off:off + size].copy()

    def describe(self, addr):
        for a, s, label in self.allocations:
            if a - 4096 <= addr < a + s + 4096:
                return f"{addr:#x} is {addr - a:+d} bytes from allocation {label or '?'} ({a:#x}, {s} bytes)"
        return f"{addr:#x} is in no allocation"


# ---------------------------------------------------------------------------
# Execution state of one launch chunk
# ---------------------------------------------------------------------------

class _State:
    pass


class _Fault(PTXEmulatorError):
    pass


def _warps_of(idx):
    """`idx` (sorted thread indices) as (nwarps, 32), or None if it is not
    made of whole warps."""
    n = len(idx)
    if n % 32:
        return None
    w = idx.reshape(-1, 32)
    if not ((w[:, 0] % 32 == 0).all() and (w - w[:, :1] == np.arange(32)).all()):
        return None
    return w


# ---------------------------------------------------------------------------
# The compiler: one closure per instruction
# ---------------------------------------------------------------------------

_SPECIAL = re.compile(r"%(tid|ntid|ctaid|nctaid)\.([xyz])$|%(laneid|warpid|nwarpid|smid|gridid|clock|clock64|lanemask_\w+)$")
_IMM_INT = re.compile(r"^-?(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9]\d*)[uU]?$")
_IMM_F = re.compile(r"^0([fFdD])([0-9a-fA-F]+)$")


class _Compiler:
    def __init__(self, module, fn):
        self.module = module
        self.fn = fn

    # -- operands -------------------------------------------------------
    def reader(self, opnd, ty):
        """fn(st, S) -> raw bits (array or 0-d) of width(ty); bool for pred."""
        fn = self.fn
        w = _width(ty)
        opnd = opnd.strip()
        if opnd.startswith("!"):
            r = self.reader(opnd[1:], "pred")
            return lambda st, S: ~r(st, S)
        if opnd.startswith("{"):
            raise PTXEmulatorError(f"vector operand {opnd} where a scalar is expected")
        m = _SPECIAL.match(opnd)
        if m:
            if m.group(1):
                key = m.group(1) + "." + m.group(2)
            else:
                key = m.group(3)
            if key not in ("tid.x", "tid.y", "tid.z", "ntid.x", "ntid.y", "ntid.z",
                           "ctaid.x", "ctaid.y", "ctaid.z", "nctaid.x", "nctaid.y",
                           "nctaid.z", "laneid", "warpid"):
                raise PTXEmulatorError(f"special register %{key} is not emulated")
            dt = _UDT[w] if w > 1 else np.uint32
            return lambda st, S: st.special[key][S].astype(dt, copy=False)
        if opnd.startswith("%") or opnd in fn.reg_types:
            rty = fn.reg_type(opnd)
            rw = _width(rty)
            name = opnd
            if w == 1:
                if rw != 1:
                    raise PTXEmulatorError(f"{opnd} is not a predicate")
                return lambda st, S: st.reg(name)[S]
            if rw == w:
                return lambda st, S: st.reg(name)[S]
            dt = _UDT[w]
            if w < rw:
                return lambda st, S: st.reg(name)[S].astype(dt)
            if _signed(ty):
                sdt_src = _SDT[rw]
                return lambda st, S: st.reg(name)[S].view(sdt_src).astype(_SDT[w]).view(dt)
            return lambda st, S: st.reg(name)[S].astype(dt)
        fm = _IMM_F.match(opnd)
        if fm:
            bits = int(fm.group(2), 16)
            if fm.group(1) in "fF":
                v = np.asarray(bits, np.uint32).view(np.float32).astype(np.float64)
            else:
                v = np.asarray(bits, np.uint64).view(np.float64)
            if ty in ("f32", "f64", "f16", "bf16"):
                c = np.asarray(_f64_to_bits(v, ty))
            elif w == 32 and fm.group(1) in "fF":
                c = np.asarray(bits, np.uint32)
            elif w == 64 and fm.group(1) in "dD":
                c = np.asarray(bits, np.uint64)
            else:
                raise PTXEmulatorError(f"float immediate {opnd} for .{ty}")
            return lambda st, S: c
        if _IMM_INT.match(opnd):
            s = opnd.rstrip("uU")
            neg = s.startswith("-")
            s2 = s[1:] if neg else s
            v = int(s2, 16) if s2.lower().startswith("0x") else (int(s2, 8) if len(s2) > 1 and s2.startswith("0") else int(s2))
            v = -v if neg else v
            if w == 1:
                c = np.asarray(bool(v))
            elif ty in ("f32", "f64", "f16", "bf16"):
                c = np.asarray(_f64_to_bits(np.float64(v), ty))
            else:
                c = np.asarray(v & ((1 << w) - 1), _UDT[w])
            return lambda st, S: c
        # A symbol: its address.
        addr = self.symbol_address(opnd)
        if addr is not None:
            space, a = addr
            dt = _UDT[w] if w > 1 else np.uint64
            if space == "global":
                return lambda st, S: np.asarray(st.global_symbols[a], dt)
            if space == "shared":
                return lambda st, S: np.asarray(st.shared_offsets[a], dt)
            if space == "local":
                return lambda st, S: np.asarray(a, dt)
            if space == "param":
                return lambda st, S: np.asarray(a, dt)
        raise PTXEmulatorError(f"{fn.name}: cannot read operand {opnd!r}")

    def symbol_address(self, name):
        """(space, key) for a symbol: shared symbols by name (offsets per
        launch), global ones by name, locals and params by offset."""
        fn = self.fn
        if name in fn.param_offsets:
            return ("param", fn.param_offsets[name])
        if name in fn.local_symbols:
            return ("local", fn.local_symbols[name][0])
        for s in self.module.shared:
            if s.name == name:
                return ("shared", name)
        for g in self.module.globals:
            if g.name == name:
                return ("global", name)
        return None

    def writer(self, opnd, ty, signed=None):
        """fn(st, S, bits): writes raw bits of width(ty) to the register."""
        opnd = opnd.strip()
        if opnd == "_":
            return lambda st, S, v: None
        # A register is any declared identifier: LLVM declares `tmp` in a
        # nested scope (`{ .reg .b16 tmp; mov.b32 {%rs1, tmp}, %r1; }`).
        if _SPECIAL.match(opnd) or not (opnd.startswith("%") or opnd in self.fn.reg_types):
            raise PTXEmulatorError(f"{self.fn.name}: cannot write to {opnd!r}")
        rty = self.fn.reg_type(opnd)
        rw = _width(rty)
        w = _width(ty)
        name = opnd
        if signed is None:
            signed = _signed(ty)
        if rw == 1:
            def wr(st, S, v):
                st.reg(name)[S] = v
            return wr
        rdt = _UDT[rw]
        if rw == w or w == 1:
            def wr(st, S, v):
                st.reg(name)[S] = v
            return wr
        if rw < w:
            def wr(st, S, v):
                st.reg(name)[S] = np.asarray(v).astype(rdt)
            return wr
        if signed:
            sdt, sw = _SDT[w], _SDT[rw]

            def wr(st, S, v):
                st.reg(name)[S] = np.asarray(v).astype(_UDT[w], copy=False).view(sdt).astype(sw).view(rdt)
            return wr

        def wr(st, S, v):
            st.reg(name)[S] = np.asarray(v).astype(rdt)
        return wr

    def vec(self, opnd):
        opnd = opnd.strip()
        if not (opnd.startswith("{") and opnd.endswith("}")):
            raise PTXEmulatorError(f"expected a vector operand, got {opnd!r}")
        return [x.strip() for x in opnd[1:-1].split(",")]

    def address(self, opnd):
        """For `[base+off]`: (space of a symbol base or None, fn(st, S) ->
        uint64 address array)."""
        opnd = opnd.strip()
        if not (opnd.startswith("[") and opnd.endswith("]")):
            raise PTXEmulatorError(f"expected an address operand, got {opnd!r}")
        inner = opnd[1:-1].replace(" ", "")
        m = re.match(r"^([^+\-]+|-?\d+)(?:\+(-?(?:0x[0-9a-fA-F]+|\d+)))?$", inner)
        if not m:
            m = re.match(r"^([^+]+)-(\d+)$", inner)
            if not m:
                raise PTXEmulatorError(f"cannot parse address {opnd}")
            base, off = m.group(1), -int(m.group(2))
        else:
            base, off = m.group(1), int(m.group(2), 0) if m.group(2) else 0
        offu = np.uint64(off & ((1 << 64) - 1))
        if base.startswith("%") or base in self.fn.reg_types:
            r = self.reader(base, "u64")
            return None, lambda st, S: r(st, S) + offu
        if _IMM_INT.match(base):
            c = np.asarray((int(base, 0) + off) & ((1 << 64) - 1), np.uint64)
            return None, lambda st, S: c
        sym = self.symbol_address(base)
        if sym is None:
            raise PTXEmulatorError(f"unknown symbol {base} in {opnd}")
        space, key = sym
        if space == "shared":
            return "shared", lambda st, S: np.asarray(st.shared_offsets[key], np.uint64) + offu
        if space == "global":
            return "global", lambda st, S: np.asarray(st.global_symbols[key], np.uint64) + offu
        c = np.asarray(key + off, np.uint64)
        return space, lambda st, S: c

    # -- instructions -------------------------------------------------------
    def compile(self, ins):
        b = ins.base
        meth = getattr(self, "op_" + b, None)
        if meth is None:
            raise PTXEmulatorError(
                f"{self.fn.name}: unsupported PTX opcode '{ins.op}' "
                f"(line {ins.line}: {ins.text})")
        kind = "alu"
        if b in ("bra", "ret", "exit", "bar", "barrier"):
            kind = b if b not in ("barrier",) else "bar"
        elif b in ("shfl", "ldmatrix", "mma", "stmatrix"):
            kind = "warp"
        ins.kind = kind
        if kind in ("alu", "warp"):
            ins.fn = meth(ins)
        else:
            meth(ins)

    def _ty(self, ins, i=-1):
        if not ins.types:
            raise PTXEmulatorError(f"no type in {ins.op}")
        return ins.types[i]

    def _rnd(self, ins):
        for m in ins.mods:
            if m in ("rn", "rz", "rm", "rp", "rna"):
                return m
        return "rn"

    def _check_mods(self, ins, allowed):
        bad = [m for m in ins.mods if m not in allowed]
        if bad:
            raise PTXEmulatorError(
                f"{self.fn.name}: unsupported modifier(s) {bad} in '{ins.op}' (line {ins.line})")

    # control flow (handled by the scheduler)
    def op_bra(self, ins):
        self._check_mods(ins, {"uni"})
        t = ins.operands[0]
        if t not in self.fn.labels:
            raise PTXEmulatorError(f"{self.fn.name}: unknown label {t}")
        ins.target = self.fn.labels[t]

    def op_ret(self, ins):
        self._check_mods(ins, {"uni"})
        if not self.fn.is_entry:
            raise PTXEmulatorError("ret from a .func (calls are not emulated)")

    op_exit = op_ret

    def op_bar(self, ins):
        self._check_mods(ins, {"sync", "aligned", "cta"})
        if ins.base == "bar" and "sync" not in ins.mods:
            raise PTXEmulatorError(f"unsupported barrier {ins.op}")
        if len(ins.operands) > 1:
            raise PTXEmulatorError(f"bar.sync with a thread count is not emulated: {ins.text}")
        if ins.operands and ins.operands[0] != "0":
            raise PTXEmulatorError(f"only barrier 0 is emulated: {ins.text}")

    op_barrier = op_bar

    # -- moves and conversions --
    def op_mov(self, ins):
        ty = self._ty(ins)
        w = _width(ty)
        d, a = ins.operands
        if d.startswith("{"):
            parts = self.vec(d)
            pw = w // len(parts)
            r = self.reader(a, ty)
            ws = [self.writer(p, "b%d" % pw) for p in parts]
            dt = _UDT[w]
            pdt = _UDT[pw]

            def f(st, S):
                v = np.asarray(r(st, S)).astype(dt, copy=False)
                for i, wr in enumerate(ws):
                    wr(st, S, ((v >> dt(i * pw)) & dt((1 << pw) - 1)).astype(pdt))
            return f
        wr = self.writer(d, ty)
        if a.startswith("{"):
            parts = self.vec(a)
            pw = w // len(parts)
            rs = [self.reader(p, "b%d" % pw) for p in parts]
            dt = _UDT[w]

            def f(st, S):
                v = np.asarray(rs[0](st, S)).astype(dt)
                for i, r in enumerate(rs[1:], 1):
                    v = v | (np.asarray(r(st, S)).astype(dt) << dt(i * pw))
                wr(st, S, v)
            return f
        r = self.reader(a, ty)
        return lambda st, S: wr(st, S, r(st, S))

    def op_cvta(self, ins):
        self._check_mods(ins, {"to", "global", "shared", "local", "const", "param"})
        ty = self._ty(ins)
        d, a = ins.operands
        r = self.reader(a, ty)
        wr = self.writer(d, ty)
        space = [m for m in ins.mods if m in _SPACES][0]
        to = "to" in ins.mods
        dt = _UDT[_width(ty)]
        if space in ("global", "const", "param"):
            return lambda st, S: wr(st, S, r(st, S))
        base = SHARED_WINDOW if space == "shared" else LOCAL_WINDOW
        if to:
            return lambda st, S: wr(st, S, (np.asarray(r(st, S)).astype(np.uint64) - np.uint64(base)).astype(dt))
        return lambda st, S: wr(st, S, (np.asarray(r(st, S)).astype(np.uint64) + np.uint64(base)).astype(dt))

    def op_cvt(self, ins):
        self._check_mods(ins, {"rn", "rz", "rm", "rp", "rna", "rni", "rzi", "rmi", "rpi", "ftz", "sat", "satfinite", "relu"})
        dty, aty = ins.types[0], ins.types[1]
        rnd = None
        for m in ins.mods:
            if m in ("rn", "rz", "rm", "rp", "rna", "rni", "rzi", "rmi", "rpi"):
                rnd = m
        sat = "sat" in ins.mods
        ftz = "ftz" in ins.mods
        if "relu" in ins.mods or "satfinite" in ins.mods and dty != "tf32":
            raise PTXEmulatorError(f"unsupported cvt modifiers in {ins.op}")
        ops = ins.operands
        if dty in ("f16x2", "bf16x2"):
            d, a, b = ops
            ra, rb = self.reader(a, aty), self.reader(b, aty)
            wr = self.writer(d, dty)
            ety = dty[:-2]

            def f(st, S):
                hi = _f64_to_bits(_bits_to_f64(ra(st, S), aty), ety, rnd or "rn", sat)
                lo = _f64_to_bits(_bits_to_f64(rb(st, S), aty), ety, rnd or "rn", sat)
                wr(st, S, _pack2(lo, hi, 16))
            return f
        d, a = ops
        r = self.reader(a, aty)
        wr = self.writer(d, dty)
        if dty == "tf32":
            if aty != "f32" or rnd not in ("rna", "rn", "rz"):
                raise PTXEmulatorError(f"unsupported {ins.op}")

            def f(st, S):
                bits = np.asarray(r(st, S)).astype(np.uint32)
                fin = (bits & np.uint32(0x7F800000)) != np.uint32(0x7F800000)
                if rnd == "rna":
                    rb = (bits.astype(np.uint64) + np.uint64(0x1000)).astype(np.uint32) & np.uint32(0xFFFFE000)
                elif rnd == "rz":
                    rb = bits & np.uint32(0xFFFFE000)
                else:
                    lsb = (bits >> np.uint32(13)) & np.uint32(1)
                    rb = (bits.astype(np.uint64) + np.uint64(0xFFF) + lsb).astype(np.uint32) & np.uint32(0xFFFFE000)
                wr(st, S, np.where(fin, rb, bits))
            return f
        dfloat, afloat = dty in _FLOAT, aty in _FLOAT
        if dfloat and afloat:
            def f(st, S):
                x = _bits_to_f64(r(st, S), aty)
                if ftz:
                    x = _ftz_in(x, aty)
                if rnd in ("rni", "rzi", "rmi", "rpi"):
                    x = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}[rnd](x)
                    wr(st, S, _f64_to_bits(x, dty, "rn", sat, ftz))
                else:
                    wr(st, S, _f64_to_bits(x, dty, rnd or "rn", sat, ftz))
            return f
        if dfloat and not afloat:
            sdt = (_SDT if _signed(aty) else _UDT)[_width(aty)]

            def f(st, S):
                x = np.asarray(r(st, S)).astype(_UDT[_width(aty)], copy=False).view(sdt).astype(np.float64)
                wr(st, S, _f64_to_bits(x, dty, rnd or "rn", sat, ftz))
            return f
        if afloat and not dfloat:
            dw = _width(dty)
            if _signed(dty):
                lo, hi = -(1 << (dw - 1)), (1 << (dw - 1)) - 1
            else:
                lo, hi = 0, (1 << dw) - 1
            func = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil,
                    None: np.trunc}[rnd]

            def f(st, S):
                x = _bits_to_f64(r(st, S), aty)
                y = np.clip(np.nan_to_num(func(x), nan=0.0), lo, hi)
                if _signed(dty):
                    v = y.astype(np.int64).astype(_SDT[dw]).view(_UDT[dw])
                else:
                    v = y.astype(np.uint64).astype(_UDT[dw])
                wr(st, S, v)
            return f
        # int -> int
        aw, dw = _width(aty), _width(dty)
        r2 = self.reader(a, aty)
        src_signed = _signed(aty)

        def f(st, S):
            v = np.asarray(r2(st, S)).astype(_UDT[aw], copy=False)
            if src_signed:
                v = v.view(_SDT[aw]).astype(np.int64)
            else:
                v = v.astype(np.uint64)
            if sat:
                if _signed(dty):
                    v = np.clip(v.astype(np.int64), -(1 << (dw - 1)), (1 << (dw - 1)) - 1)
                else:
                    v = np.clip(v.astype(np.int64) if src_signed else v, 0, (1 << dw) - 1)
            wr(st, S, np.asarray(v).astype(_SDT[dw] if _signed(dty) else _UDT[dw]).view(_UDT[dw]))
        return f

    # -- integer and bit arithmetic --
    def _int_binary(self, ins, func, b_ty=None):
        ty = self._ty(ins)
        w = _width(ty)
        d, a, b = ins.operands
        ra = self.reader(a, ty)
        rb = self.reader(b, b_ty or ty)
        wr = self.writer(d, ty)
        dt = (_SDT if _signed(ty) else _UDT)[w]
        udt = _UDT[w]

        def f(st, S):
            x = np.asarray(ra(st, S)).view(dt)
            y = np.asarray(rb(st, S))
            y = y.view(dt) if b_ty is None else y
            wr(st, S, np.asarray(func(x, y)).astype(dt, copy=False).view(udt))
        return f

    def _float_op(self, ins, func, nargs):
        ty = self._ty(ins)
        rnd = self._rnd(ins)
        sat = "sat" in ins.mods
        ftz = "ftz" in ins.mods
        d = ins.operands[0]
        srcs = ins.operands[1:1 + nargs]
        if len(ins.operands) != nargs + 1:
            raise PTXEmulatorError(f"{ins.op}: expected {nargs} sources: {ins.text}")
        rs = [self.reader(s, ty) for s in srcs]
        wr = self.writer(d, ty)
        if ty in ("f16x2", "bf16x2"):
            ety = ty[:-2]

            def f(st, S):
                halves = [_unpack2(r(st, S), 16) for r in rs]
                lo = _f64_to_bits(func(*[_bits_to_f64(h[0], ety) for h in halves]), ety, rnd, sat)
                hi = _f64_to_bits(func(*[_bits_to_f64(h[1], ety) for h in halves]), ety, rnd, sat)
                wr(st, S, _pack2(lo, hi, 16))
            return f

        def f(st, S):
            xs = [_bits_to_f64(r(st, S), ty) for r in rs]
            if ftz:
                xs = [_ftz_in(x, ty) for x in xs]
            wr(st, S, _f64_to_bits(func(*xs), ty, rnd, sat, ftz))
        return f

    def _is_float(self, ins):
        return self._ty(ins) in _FLOAT

    def op_add(self, ins):
        if self._is_float(ins):
            self._check_mods(ins, {"rn", "rz", "rm", "rp", "ftz", "sat"})
            return self._float_op(ins, lambda a, b: a + b, 2)
        if "cc" in ins.mods:
            return self._carry_add(ins, sub=False, carry_in=False)
        self._check_mods(ins, set())
        return self._int_binary(ins, lambda a, b: a + b)

    def op_sub(self, ins):
        if self._is_float(ins):
            self._check_mods(ins, {"rn", "rz", "rm", "rp", "ftz", "sat"})
            return self._float_op(ins, lambda a, b: a - b, 2)
        if "cc" in ins.mods:
            return self._carry_add(ins, sub=True, carry_in=False)
        self._check_mods(ins, set())
        return self._int_binary(ins, lambda a, b: a - b)

    # Extended-precision integer arithmetic (libdevice's sinf/cosf argument
    # reduction: `mad.lo.cc.u32` then `madc.hi.u32`): the condition code's
    # carry flag CC.CF is a per-thread register; `.cc` writes it, the `c`
    # forms (addc, subc, madc) read it.
    _CC = "%__cc.cf"

    def _cc_reg(self):
        self.fn.reg_types[self._CC] = "pred"
        return self._CC

    def _add_with_carry(self, st, S, x, y, w, carry_in, write_cc):
        """x + y (+ CF) on w-bit unsigned bits; sets CF to the carry out."""
        udt = _UDT[w]
        x = np.asarray(x).astype(udt)
        y = np.asarray(y).astype(udt)
        cin = st.reg(self._CC)[S].astype(udt) if carry_in else udt(0)
        r1 = (x + y).astype(udt)
        c1 = r1 < x
        r2 = (r1 + cin).astype(udt)
        c2 = r2 < r1
        if write_cc:
            st.reg(self._CC)[S] = np.broadcast_to(c1 | c2, np.shape(st.reg(self._CC)[S]))
        return r2

    def _carry_add(self, ins, sub, carry_in):
        """add.cc / addc[.cc]: d = a + b (+ CF), CF the carry out;
        sub.cc / subc[.cc]: d = a - (b (+ CF)), CF the borrow out (the ISA's
        CC.CF for subtraction), on .u32/.s32/.u64/.s64 bits."""
        self._check_mods(ins, {"cc"})
        ty = self._ty(ins)
        if ty not in ("u32", "s32", "u64", "s64", "b32", "b64"):
            raise PTXEmulatorError(f"{ins.op}: unsupported type for carry arithmetic")
        w = _width(ty)
        udt = _UDT[w]
        d, a, b = ins.operands
        ra, rb, wr = self.reader(a, ty), self.reader(b, ty), self.writer(d, ty)
        write_cc = "cc" in ins.mods
        cc = self._cc_reg()
        if not sub:
            def f(st, S):
                wr(st, S, self._add_with_carry(st, S, ra(st, S), rb(st, S), w,
                                               carry_in, write_cc))
            return f

        def f(st, S):
            x = np.asarray(ra(st, S)).astype(udt)
            y = np.asarray(rb(st, S)).astype(udt)
            cin = st.reg(cc)[S] if carry_in else np.zeros((), bool)
            r = (x - y - cin.astype(udt)).astype(udt)
            if write_cc:
                # a - b - cin < 0  <=>  a < b, or a == b and cin
                borrow = (x < y) | ((x == y) & cin)
                st.reg(cc)[S] = np.broadcast_to(borrow, np.shape(st.reg(cc)[S]))
            wr(st, S, r)
        return f

    def op_addc(self, ins):
        return self._carry_add(ins, sub=False, carry_in=True)

    def op_subc(self, ins):
        return self._carry_add(ins, sub=True, carry_in=True)

    def op_shf(self, ins):
        """Funnel shift: shf.l d = upper 32 bits of (b:a) << n, shf.r d =
        lower 32 bits of (b:a) >> n; n = c & 31 (.wrap) or min(c, 32)
        (.clamp)."""
        self._check_mods(ins, {"l", "r", "wrap", "clamp"})
        if self._ty(ins) not in ("b32", "u32", "s32"):
            raise PTXEmulatorError(f"{ins.op}: only .b32 is emulated")
        left = "l" in ins.mods
        clamp = "clamp" in ins.mods
        if left == ("r" in ins.mods) or clamp == ("wrap" in ins.mods):
            raise PTXEmulatorError(f"{ins.op}: needs one of .l/.r and one of .wrap/.clamp")
        d, a, b, c = ins.operands
        ra, rb, rc = self.reader(a, "b32"), self.reader(b, "b32"), self.reader(c, "b32")
        wr = self.writer(d, "b32")

        def f(st, S):
            x = np.asarray(ra(st, S)).astype(np.uint64)
            y = np.asarray(rb(st, S)).astype(np.uint64)
            n = np.asarray(rc(st, S)).astype(np.uint64)
            n = np.minimum(n, np.uint64(32)) if clamp else (n & np.uint64(31))
            v = (y << np.uint64(32)) | x
            if left:
                r = (v << n) >> np.uint64(32)
            else:
                r = v >> n
            wr(st, S, (r & np.uint64(0xFFFFFFFF)).astype(np.uint32))
        return f

    def op_mul(self, ins):
        if self._is_float(ins):
            self._check_mods(ins, {"rn", "rz", "rm", "rp", "ftz", "sat"})
            return self._float_op(ins, lambda a, b: a * b, 2)
        return self._int_mul(ins, mad=False)

    def _int_mul(self, ins, mad, carry_in=False):
        self._check_mods(ins, {"lo", "hi", "wide"} | ({"cc"} if mad else set()))
        write_cc = "cc" in ins.mods
        if (write_cc or carry_in) and "wide" in ins.mods:
            raise PTXEmulatorError(f"{ins.op}: .wide with a carry")
        if write_cc or carry_in:
            self._cc_reg()
        mode = [m for m in ins.mods if m in ("lo", "hi", "wide")]
        if len(mode) != 1:
            raise PTXEmulatorError(f"{ins.op}: needs .lo, .hi or .wide")
        mode = mode[0]
        ty = self._ty(ins)
        w = _width(ty)
        sg = _signed(ty)
        ops = ins.operands
        ra, rb = self.reader(ops[1], ty), self.reader(ops[2], ty)
        dty = ty if mode != "wide" else ("s" if sg else "u") + str(2 * w)
        rc = self.reader(ops[3], dty) if mad else None
        wr = self.writer(ops[0], dty)
        dw = _width(dty)

        def f(st, S):
            a = np.asarray(ra(st, S))
            b = np.asarray(rb(st, S))
            if sg:
                a, b = a.view(_SDT[w]), b.view(_SDT[w])
            if mode == "lo":
                p = (a.astype(np.uint64) * b.astype(np.uint64)) if w <= 64 else None
                p = p.astype(_UDT[w])
            elif mode == "wide":
                if sg:
                    p = a.astype(np.int64) * b.astype(np.int64)
                    p = p.view(np.uint64) if w == 32 else p.astype(np.int32).view(np.uint32)
                else:
                    p = a.astype(np.uint64) * b.astype(np.uint64)
                p = p.astype(_UDT[dw])
            else:  # hi
                if w <= 32:
                    if sg:
                        p = (a.astype(np.int64) * b.astype(np.int64)) >> np.int64(w)
                        p = p.astype(_SDT[w]).view(_UDT[w])
                    else:
                        p = ((a.astype(np.uint64) * b.astype(np.uint64)) >> np.uint64(w)).astype(_UDT[w])
                else:
                    av = np.broadcast_to(a, np.broadcast(a, b).shape)
                    bv = np.broadcast_to(b, av.shape)
                    p = np.array([((int(x) * int(y)) >> 64) & ((1 << 64) - 1)
                                  for x, y in zip(av.ravel(), bv.ravel())], np.uint64).reshape(av.shape)
            if mad and (write_cc or carry_in):
                p = self._add_with_carry(st, S, p, rc(st, S), dw, carry_in, write_cc)
            elif mad:
                p = (p.astype(_UDT[dw]) + np.asarray(rc(st, S)).astype(_UDT[dw])).astype(_UDT[dw])
            wr(st, S, p)
        return f

    def op_mad(self, ins):
        if self._is_float(ins):
            self._check_mods(ins, {"rn", "rz", "rm", "rp", "ftz", "sat"})
            return self._float_op(ins, lambda a, b, c: a * b + c, 3)
        return self._int_mul(ins, mad=True)

    def op_madc(self, ins):
        return self._int_mul(ins, mad=True, carry_in=True)

    def op_fma(self, ins):
        self._check_mods(ins, {"rn", "rz", "rm", "rp", "ftz", "sat"})
        return self._float_op(ins, lambda a, b, c: a * b + c, 3)

    def op_div(self, ins):
        if self._is_float(ins):
            self._check_mods(ins, {"rn", "rz", "rm", "rp", "ftz", "approx", "full"})
            return self._float_op(ins, lambda a, b: a / b, 2)
        self._check_mods(ins, set())
        sg = _signed(self._ty(ins))

        def div(a, b):
            bz = b == 0
            bb = np.where(bz, 1, b)
            if sg:
                q = np.abs(a.astype(np.int64)) // np.abs(bb.astype(np.int64))
                q = np.where((a < 0) != (bb < 0), -q, q)
            else:
                q = a // bb
            return np.where(bz, -1 if sg else np.iinfo(a.dtype).max, q).astype(a.dtype)
        return self._int_binary(ins, div)

    def op_rem(self, ins):
        self._check_mods(ins, set())
        sg = _signed(self._ty(ins))

        def rem(a, b):
            bb = np.where(b == 0, 1, b)
            if sg:
                r = np.abs(a.astype(np.int64)) % np.abs(bb.astype(np.int64))
                r = np.where(a < 0, -r, r)
            else:
                r = a % bb
            return np.where(b == 0, a, r).astype(a.dtype)
        return self._int_binary(ins, rem)

    def _minmax(self, ins, is_max):
        ty = self._ty(ins)
        if ty in _FLOAT:
            self._check_mods(ins, {"ftz", "NaN"})
            nan = "NaN" in ins.mods
            if nan:
                func = np.maximum if is_max else np.minimum
            else:
                func = np.fmax if is_max else np.fmin
            return self._float_op(ins, func, 2)
        self._check_mods(ins, set())
        return self._int_binary(ins, np.maximum if is_max else np.minimum)

    def op_min(self, ins):
        return self._minmax(ins, False)

    def op_max(self, ins):
        return self._minmax(ins, True)

    def op_neg(self, ins):
        ty = self._ty(ins)
        if ty in _FLOAT:
            self._check_mods(ins, {"ftz"})
            return self._float_op(ins, lambda a: -a, 1)
        w = _width(ty)
        d, a = ins.operands
        r, wr = self.reader(a, ty), self.writer(d, ty)
        return lambda st, S: wr(st, S, (np.asarray(r(st, S)).astype(np.uint64) * np.uint64((1 << 64) - 1)).astype(_UDT[w]) if w == 64
                                else ((-np.asarray(r(st, S)).astype(np.int64)) & ((1 << w) - 1)).astype(_UDT[w]))

    def op_abs(self, ins):
        ty = self._ty(ins)
        if ty in _FLOAT:
            self._check_mods(ins, {"ftz"})
            return self._float_op(ins, np.abs, 1)
        w = _width(ty)
        d, a = ins.operands
        r, wr = self.reader(a, ty), self.writer(d, ty)
        return lambda st, S: wr(st, S, np.abs(np.asarray(r(st, S)).view(_SDT[w])).view(_UDT[w]))

    def _bitop(self, ins, func):
        ty = self._ty(ins)
        self._check_mods(ins, set())
        if ty == "pred":
            d, a, b = ins.operands
            ra, rb, wr = self.reader(a, "pred"), self.reader(b, "pred"), self.writer(d, "pred")
            return lambda st, S: wr(st, S, func(ra(st, S), rb(st, S)))
        return self._int_binary(ins, func)

    def op_and(self, ins):
        return self._bitop(ins, lambda a, b: a & b)

    def op_or(self, ins):
        return self._bitop(ins, lambda a, b: a | b)

    def op_xor(self, ins):
        return self._bitop(ins, lambda a, b: a ^ b)

    def op_not(self, ins):
        ty = self._ty(ins)
        d, a = ins.operands
        r, wr = self.reader(a, ty), self.writer(d, ty)
        return lambda st, S: wr(st, S, ~np.asarray(r(st, S)))

    def op_cnot(self, ins):
        ty = self._ty(ins)
        d, a = ins.operands
        r, wr = self.reader(a, ty), self.writer(d, ty)
        dt = _UDT[_width(ty)]
        return lambda st, S: wr(st, S, (np.asarray(r(st, S)) == 0).astype(dt))

    def op_shl(self, ins):
        ty = self._ty(ins)
        w = _width(ty)
        dt = _UDT[w]

        def f(a, b):
            a = np.asarray(a).view(dt)
            b = np.asarray(b).astype(np.uint64)
            s = np.minimum(b, np.uint64(w - 1)).astype(dt)
            return np.where(b >= w, dt(0), a << s)
        return self._int_binary(ins, f, b_ty="u32")

    def op_shr(self, ins):
        ty = self._ty(ins)
        w = _width(ty)
        sg = _signed(ty)

        def f(a, b):
            b = np.asarray(b).astype(np.uint64)
            s = np.minimum(b, np.uint64(w - 1)).astype(a.dtype)
            r = a >> s
            if not sg:
                r = np.where(b >= w, a.dtype.type(0), r)
            return r
        return self._int_binary(ins, f, b_ty="u32")

    def op_bfe(self, ins):
        ty = self._ty(ins)
        w = _width(ty)
        sg = _signed(ty)
        d, a, b, c = ins.operands
        ra, rb, rc = self.reader(a, ty), self.reader(b, "u32"), self.reader(c, "u32")
        wr = self.writer(d, ty)

        def f(st, S):
            x = np.asarray(ra(st, S)).astype(np.uint64)
            pos = np.asarray(rb(st, S)).astype(np.uint64) & np.uint64(0xFF)
            ln = np.asarray(rc(st, S)).astype(np.uint64) & np.uint64(0xFF)
            pos_c = np.minimum(pos, np.uint64(63))
            ln_c = np.minimum(ln, np.uint64(64))
            field = np.where(pos >= w, np.uint64(0), x >> pos_c)
            mask = np.where(ln_c >= 64, np.uint64((1 << 64) - 1),
                            (np.uint64(1) << np.minimum(ln_c, np.uint64(63))) - np.uint64(1))
            field = field & mask
            if sg:
                sbit_pos = np.minimum(pos + ln - np.uint64(1), np.uint64(w - 1))
                sbit = np.where(ln == 0, np.uint64(0), (x >> np.minimum(sbit_pos, np.uint64(63))) & np.uint64(1))
                ext = np.where(ln_c >= 64, np.uint64(0), ~mask)
                field = np.where(sbit == 1, field | ext, field)
            field = np.where(ln == 0, np.uint64(0), field)
            wr(st, S, field.astype(_UDT[w]))
        return f

    def op_popc(self, ins):
        ty = self._ty(ins)
        d, a = ins.operands
        r, wr = self.reader(a, ty), self.writer(d, "u32")

        def f(st, S):
            x = np.asarray(r(st, S)).astype(np.uint64)
            c = np.zeros(x.shape, np.uint32)
            for i in range(_width(ty)):
                c += ((x >> np.uint64(i)) & np.uint64(1)).astype(np.uint32)
            wr(st, S, c)
        return f

    def op_clz(self, ins):
        ty = self._ty(ins)
        w = _width(ty)
        d, a = ins.operands
        r, wr = self.reader(a, ty), self.writer(d, "u32")

        def f(st, S):
            x = np.asarray(r(st, S)).astype(np.uint64)
            c = np.full(x.shape, w, np.uint32)
            for i in range(w):
                c = np.where(((x >> np.uint64(i)) & np.uint64(1)) == 1, np.uint32(w - 1 - i), c)
            wr(st, S, c)
        return f

    def op_prmt(self, ins):
        self._check_mods(ins, set())
        d, a, b, c = ins.operands
        ra, rb, rc = self.reader(a, "b32"), self.reader(b, "b32"), self.reader(c, "b32")
        wr = self.writer(d, "b32")

        def f(st, S):
            x = np.asarray(ra(st, S)).astype(np.uint64) | (np.asarray(rb(st, S)).astype(np.uint64) << np.uint64(32))
            sel = np.asarray(rc(st, S)).astype(np.uint64)
            out = np.zeros(np.broadcast(x, sel).shape, np.uint64)
            for i in range(4):
                s = (sel >> np.uint64(4 * i)) & np.uint64(0xF)
                byte = (x >> ((s & np.uint64(7)) * np.uint64(8))) & np.uint64(0xFF)
                sign = np.where((byte & np.uint64(0x80)) != 0, np.uint64(0xFF), np.uint64(0))
                byte = np.where((s & np.uint64(8)) != 0, sign, byte)
                out |= byte << np.uint64(8 * i)
            wr(st, S, out.astype(np.uint32))
        return f

    def op_selp(self, ins):
        ty = self._ty(ins)
        d, a, b, c = ins.operands
        ra, rb, rc = self.reader(a, ty), self.reader(b, ty), self.reader(c, "pred")
        wr = self.writer(d, ty)
        return lambda st, S: wr(st, S, np.where(rc(st, S), ra(st, S), rb(st, S)))

    def op_setp(self, ins):
        ty = self._ty(ins)
        cmp_ = [m for m in ins.mods if m in (
            "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu",
            "ltu", "leu", "gtu", "geu", "num", "nan")]
        boolop = [m for m in ins.mods if m in ("and", "or", "xor")]
        self._check_mods(ins, set(cmp_) | set(boolop) | {"ftz"})
        if len(cmp_) != 1:
            raise PTXEmulatorError(f"cannot parse {ins.op}")
        cmp_ = cmp_[0]
        ops = ins.operands
        dests = ops[0].split("|")
        ra, rb = self.reader(ops[1], ty), self.reader(ops[2], ty)
        rc = self.reader(ops[3], "pred") if boolop else None
        wp = self.writer(dests[0], "pred")
        wq = self.writer(dests[1], "pred") if len(dests) > 1 else None
        is_f = ty in _FLOAT
        w = _width(ty)
        sdt = _SDT[w] if (ty[0] == "s") else _UDT[w]

        def f(st, S):
            a, b = np.asarray(ra(st, S)), np.asarray(rb(st, S))
            if is_f:
                x, y = _bits_to_f64(a, ty), _bits_to_f64(b, ty)
                un = np.isnan(x) | np.isnan(y)
                base = cmp_.rstrip("u") if cmp_ not in ("num", "nan") else cmp_
                if cmp_ == "num":
                    r = ~un
                elif cmp_ == "nan":
                    r = un
                else:
                    r = {"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y,
                         "gt": x > y, "ge": x >= y}[base]
                    if cmp_.endswith("u") and cmp_ != "ne":
                        r = r | un
                    elif cmp_ == "ne":
                        r = r & ~un
            else:
                x, y = a.view(sdt), b.view(sdt)
                if cmp_ in ("lo", "ls", "hi", "hs"):
                    x, y = a.view(_UDT[w]), b.view(_UDT[w])
                r = {"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y,
                     "ge": x >= y, "lo": x < y, "ls": x <= y, "hi": x > y, "hs": x >= y}[cmp_]
            r = np.asarray(r)
            q = ~r
            if boolop:
                c = rc(st, S)
                op = boolop[0]
                if op == "and":
                    r, q = r & c, q & c
                elif op == "or":
                    r, q = r | c, q | c
                else:
                    r, q = r ^ c, q ^ c
            wp(st, S, r)
            if wq:
                wq(st, S, q)
        return f

    # -- float functions --
    def _unary_fn(self, ins, func, allowed):
        self._check_mods(ins, allowed)
        return self._float_op(ins, func, 1)

    def op_ex2(self, ins):
        return self._unary_fn(ins, np.exp2, {"approx", "ftz"})

    def op_lg2(self, ins):
        return self._unary_fn(ins, lambda x: np.log2(x), {"approx", "ftz"})

    def op_rsqrt(self, ins):
        return self._unary_fn(ins, lambda x: 1.0 / np.sqrt(x), {"approx", "ftz"})

    def op_sqrt(self, ins):
        return self._unary_fn(ins, np.sqrt, {"approx", "ftz", "rn", "rz", "rm", "rp"})

    def op_rcp(self, ins):
        return self._unary_fn(ins, lambda x: 1.0 / x, {"approx", "ftz", "rn", "rz", "rm", "rp"})

    def op_tanh(self, ins):
        return self._unary_fn(ins, np.tanh, {"approx"})

    def op_sin(self, ins):
        return self._unary_fn(ins, np.sin, {"approx", "ftz"})

    def op_cos(self, ins):
        return self._unary_fn(ins, np.cos, {"approx", "ftz"})

    def op_copysign(self, ins):
        # copysign.f32 d, a, b: b with the sign of a.
        return self._float_op(ins, lambda a, b: np.copysign(b, a), 2)

    def op_testp(self, ins):
        ty = self._ty(ins)
        kind = [m for m in ins.mods if m in ("finite", "infinite", "number", "notanumber", "normal", "subnormal")]
        d, a = ins.operands
        r, wr = self.reader(a, ty), self.writer(d, "pred")
        k = kind[0]

        def f(st, S):
            x = _bits_to_f64(r(st, S), ty)
            res = {"finite": np.isfinite(x), "infinite": np.isinf(x), "number": ~np.isnan(x),
                   "notanumber": np.isnan(x)}.get(k)
            if res is None:
                raise PTXEmulatorError(f"testp.{k}")
            wr(st, S, res)
        return f

    # -- memory --
    def _mem_parts(self, ins):
        space = [m for m in ins.mods if m in _SPACES]
        vec = [m for m in ins.mods if re.match(r"v\d$", m)]
        allowed = set(_SPACES) | {"v2", "v4", "v8", "weak", "volatile", "relaxed", "acquire", "release",
                                  "cta", "gpu", "sys", "nc", "ca", "cg", "cs", "lu", "cv", "wb", "wt",
                                  "L1::evict_normal", "L1::evict_last", "L1::evict_first",
                                  "L1::no_allocate", "L2::64B", "L2::128B", "L2::256B"}
        self._check_mods(ins, allowed)
        return (space[0] if space else "generic"), (int(vec[0][1:]) if vec else 1)

    def op_ld(self, ins):
        space, n = self._mem_parts(ins)
        ty = self._ty(ins)
        w = _width(ty)
        d, a = ins.operands
        sym_space, addr = self.address(a)
        if sym_space is not None and sym_space != space and space != "generic":
            raise PTXEmulatorError(f"{ins.text}: symbol of space {sym_space}")
        space = sym_space or space
        if space == "param":
            # Kernel parameters: one value for every thread.
            def f_param(st, S):
                a0 = int(np.asarray(addr(st, S)).reshape(-1)[0])
                vals = [np.asarray(st.param_bytes[a0 + i * w // 8:a0 + (i + 1) * w // 8].view(_UDT[w])[0])
                        for i in range(n)]
                return vals
            dests = self.vec(d) if n > 1 else [d]
            ws = [self.writer(x, ty) for x in dests]

            def f(st, S):
                for wr, v in zip(ws, f_param(st, S)):
                    wr(st, S, v)
            return f
        dests = self.vec(d) if n > 1 else [d]
        ws = [self.writer(x, ty) for x in dests]
        pc_text = ins

        def f(st, S):
            vals = st.load(space, addr(st, S), w, n, S, pc_text)
            for i, wr in enumerate(ws):
                wr(st, S, vals[:, i])
        return f

    def op_st(self, ins):
        space, n = self._mem_parts(ins)
        ty = self._ty(ins)
        w = _width(ty)
        a, v = ins.operands
        sym_space, addr = self.address(a)
        space = sym_space or space
        if space == "param":
            raise PTXEmulatorError("st.param (calls) is not emulated")
        srcs = self.vec(v) if n > 1 else [v]
        rs = [self.reader(x, ty) for x in srcs]
        pc_text = ins

        def f(st, S):
            ad = addr(st, S)
            nthreads = st.count(S)
            vals = np.empty((nthreads, n), _UDT[w])
            for i, r in enumerate(rs):
                vals[:, i] = r(st, S)
            st.store(space, ad, w, n, S, vals, pc_text)
        return f

    def op_cp(self, ins):
        parts = ins.parts
        if parts[1] != "async":
            raise PTXEmulatorError(f"unsupported opcode '{ins.op}'")
        rest = [p for p in parts[2:]]
        if rest == ["commit_group"]:
            def f(st, S):
                st.cp_commits[S] += 1
            return f
        if rest in (["wait_group"], ["wait_all"]):
            if rest == ["wait_all"]:
                def f(st, S):
                    st.cp_commits[S] += 1
                    st.cp_wait(S, 0)
                return f
            nkeep = int(ins.operands[0])
            return lambda st, S: st.cp_wait(S, nkeep)
        # cp.async.(ca|cg).shared{::cta}.global{.L2::...} [dst], [src], cp-size{, src-size};
        mods = [p for p in rest if not p.startswith("L2::")]
        if not mods or mods[0] not in ("ca", "cg") or mods[1:] not in (["shared", "global"], ["shared::cta", "global"]):
            raise PTXEmulatorError(f"unsupported '{ins.op}'")
        ops = ins.operands
        if len(ops) not in (3, 4):
            raise PTXEmulatorError(f"unsupported cp.async operands: {ins.text}")
        _, dst = self.address(ops[0])
        _, src = self.address(ops[1])
        size = int(ops[2])
        if mods[0] == "cg" and size != 16 or size not in (4, 8, 16):
            raise PTXEmulatorError(f"invalid cp.async size: {ins.text}")
        srcsize = self.reader(ops[3], "u32") if len(ops) == 4 else None
        pc_text = ins

        def f(st, S):
            ss = None if srcsize is None else np.asarray(srcsize(st, S))
            st.cp_issue(dst(st, S), src(st, S), size, ss, S, pc_text)
        return f

    def op_membar(self, ins):
        return lambda st, S: None

    def op_fence(self, ins):
        return lambda st, S: None

    # -- warp collectives --
    def op_shfl(self, ins):
        if "sync" not in ins.mods:
            raise PTXEmulatorError("shfl without .sync")
        mode = [m for m in ins.mods if m in ("up", "down", "bfly", "idx")][0]
        self._check_mods(ins, {"sync", mode})
        ops = ins.operands
        dests = ops[0].split("|")
        ra = self.reader(ops[1], "b32")
        rb = self.reader(ops[2], "b32")
        rc = self.reader(ops[3], "b32")
        rm = self.reader(ops[4], "b32")
        wd = self.writer(dests[0], "b32")
        wp = self.writer(dests[1], "pred") if len(dests) > 1 else None

        def f(st, S, warps):
            nw = warps.shape[0]
            a = np.broadcast_to(np.asarray(ra(st, S)), (nw * 32,)).reshape(nw, 32)
            b = np.broadcast_to(np.asarray(rb(st, S)).astype(np.int64), (nw * 32,)).reshape(nw, 32) & 31
            c = np.broadcast_to(np.asarray(rc(st, S)).astype(np.int64), (nw * 32,)).reshape(nw, 32)
            mm = np.broadcast_to(np.asarray(rm(st, S)).astype(np.int64), (nw * 32,)).reshape(nw, 32)
            if not (mm == 0xFFFFFFFF).all():
                raise _Fault("shfl.sync with a member mask other than all lanes is not emulated")
            lane = np.arange(32)[None, :]
            cval = c & 31
            segmask = (c >> 8) & 31
            max_lane = (lane & segmask) | (cval & ~segmask)
            min_lane = lane & segmask
            if mode == "up":
                j = lane - b
                pval = j >= max_lane
            elif mode == "down":
                j = lane + b
                pval = j <= max_lane
            elif mode == "bfly":
                j = lane ^ b
                pval = j <= max_lane
            else:
                j = min_lane | (b & ~segmask)
                pval = j <= max_lane
            j = np.where(pval, j, lane)
            out = np.take_along_axis(a, j, axis=1)
            wd(st, S, out.reshape(-1))
            if wp:
                wp(st, S, pval.reshape(-1))
        return f

    def op_ldmatrix(self, ins):
        self._check_mods(ins, {"sync", "aligned", "m8n8", "x1", "x2", "x4", "trans", "shared", "shared::cta"})
        if "m8n8" not in ins.mods or self._ty(ins) != "b16":
            raise PTXEmulatorError(f"unsupported '{ins.op}'")
        num = 4 if "x4" in ins.mods else 2 if "x2" in ins.mods else 1
        trans = "trans" in ins.mods
        shared = "shared" in ins.mods or "shared::cta" in ins.mods
        dests = self.vec(ins.operands[0])
        if len(dests) != num:
            raise PTXEmulatorError(f"ldmatrix destination count: {ins.text}")
        _, addr = self.address(ins.operands[1])
        ws = [self.writer(x, "b32") for x in dests]
        lane = np.arange(32)
        g, t = lane >> 2, lane & 3
        pc_text = ins

        def f(st, S, warps):
            nw = warps.shape[0]
            ad = np.broadcast_to(np.asarray(addr(st, S)), (nw * 32,)).reshape(nw, 32)
            if not shared:
                ad = st.generic_to_shared(ad, pc_text)
            # rows[w, m, r, e]: element e of row r of matrix m.
            flat_threads = warps
            rows = np.empty((nw, num, 8, 8), np.uint16)
            for m in range(num):
                row_addr = ad[:, 8 * m:8 * m + 8]          # (nw, 8)
                thr = flat_threads[:, 8 * m:8 * m + 8]
                vals = st.shared_read_rows(row_addr.reshape(-1), thr.reshape(-1), pc_text)
                rows[:, m] = vals.reshape(nw, 8, 8)
            for m, wr in enumerate(ws):
                M = rows[:, m]
                if trans:
                    lo = M[:, 2 * t, g]
                    hi = M[:, 2 * t + 1, g]
                else:
                    lo = M[:, g, 2 * t]
                    hi = M[:, g, 2 * t + 1]
                wr(st, S, _pack2(lo, hi, 16).reshape(-1))
        return f

    def op_mma(self, ins):
        self._check_mods(ins, {"sync", "aligned", "m16n8k16", "m16n8k8", "row", "col"})
        shape = [m for m in ins.mods if m.startswith("m16")][0]
        if ins.mods[-2:] != ["row", "col"] and "row" not in ins.mods:
            raise PTXEmulatorError(f"unsupported layout in {ins.op}")
        dty, aty, bty, cty = ins.types
        if dty != "f32" or cty != "f32":
            raise PTXEmulatorError(f"unsupported '{ins.op}' (f32 accumulators only)")
        if aty != bty or aty not in ("f16", "bf16", "tf32"):
            raise PTXEmulatorError(f"unsupported '{ins.op}'")
        K = 16 if shape == "m16n8k16" else 8
        d, a, b, c = [self.vec(o) for o in ins.operands]
        lane = np.arange(32)
        g, t = lane >> 2, lane & 3
        # Element coordinates of every (register, lane, half).
        if aty == "tf32":
            if K != 8 or len(a) != 4 or len(b) != 2:
                raise PTXEmulatorError(f"unsupported '{ins.op}'")
            a_rc = [(g + 8 * (r & 1), t + 4 * (r >> 1)) for r in range(4)]
            b_kn = [(t + 4 * r, g) for r in range(2)]
        else:
            na = 4 if K == 16 else 2
            nb = 2 if K == 16 else 1
            if len(a) != na or len(b) != nb:
                raise PTXEmulatorError(f"operand counts of '{ins.op}'")
            a_rc = [[(g + 8 * (r & 1), 2 * t + 8 * (r >> 1) + h) for h in (0, 1)] for r in range(na)]
            b_kn = [[(2 * t + 8 * r + h, g) for h in (0, 1)] for r in range(nb)]
        c_rc = [(g + 8 * (r >> 1), 2 * t + (r & 1)) for r in range(4)]
        ra = [self.reader(x, "b32") for x in a]
        rb = [self.reader(x, "b32") for x in b]
        rc = [self.reader(x, "b32") for x in c]
        wd = [self.writer(x, "b32") for x in d]

        def f(st, S, warps):
            nw = warps.shape[0]
            A = np.zeros((nw, 16, K))
            B = np.zeros((nw, K, 8))
            C = np.zeros((nw, 16, 8))

            def regs(r):
                return np.broadcast_to(np.asarray(r(st, S)), (nw * 32,)).reshape(nw, 32)
            def fill(M, readers, places):
                # Each register holds one tf32 or two 16-bit elements.
                for r, place in zip(readers, places):
                    v = regs(r)
                    if aty == "tf32":
                        M[:, place[0], place[1]] = _bits_to_f64(
                            v.astype(np.uint32) & np.uint32(0xFFFFE000), "f32")
                    else:
                        lo, hi = _unpack2(v, 16)
                        M[:, place[0][0], place[0][1]] = _bits_to_f64(lo, aty)
                        M[:, place[1][0], place[1][1]] = _bits_to_f64(hi, aty)
            fill(A, ra, a_rc)
            fill(B, rb, b_kn)
            for i, r in enumerate(rc):
                C[:, c_rc[i][0], c_rc[i][1]] = _bits_to_f64(regs(r), "f32")
            D = np.matmul(A, B) + C
            for i, wr in enumerate(wd):
                wr(st, S, _f64_to_bits(D[:, c_rc[i][0], c_rc[i][1]], "f32").reshape(-1))
        return f


# ---------------------------------------------------------------------------
# Launch
# ---------------------------------------------------------------------------

class _Launch(_State):
    def __init__(self, module, fn, gmem, grid, block, dyn_shared, params,
                 block_ids, shared_fill, max_steps, schedule="warps-descending",
                 profile=None):
        self.schedule = schedule
        self.profile = profile
        self.module = module
        self.fn = fn
        self.gmem = gmem
        self.grid = grid
        self.block = block
        nthr = block[0] * block[1] * block[2]
        self.bpad = (nthr + 31) // 32 * 32
        self.nblk = len(block_ids)
        T = self.nblk * self.bpad
        self.T = T
        self.regs = {}
        self.max_steps = max_steps
        t = np.arange(T)
        lin = t % self.bpad
        blk = t // self.bpad
        self.thread_block = blk
        bid = np.asarray(block_ids)[blk]
        bx, by, bz = block
        gx, gy, gz = grid
        self.special = {
            "tid.x": (lin % bx).astype(np.uint32),
            "tid.y": ((lin // bx) % by).astype(np.uint32),
            "tid.z": (lin // (bx * by)).astype(np.uint32),
            "ntid.x": np.full(T, bx, np.uint32), "ntid.y": np.full(T, by, np.uint32),
            "ntid.z": np.full(T, bz, np.uint32),
            "ctaid.x": (bid % gx).astype(np.uint32),
            "ctaid.y": ((bid // gx) % gy).astype(np.uint32),
            "ctaid.z": (bid // (gx * gy)).astype(np.uint32),
            "nctaid.x": np.full(T, gx, np.uint32), "nctaid.y": np.full(T, gy, np.uint32),
            "nctaid.z": np.full(T, gz, np.uint32),
            "laneid": (lin % 32).astype(np.uint32),
            "warpid": (lin // 32).astype(np.uint32),
        }
        self.padding = lin >= nthr
        # Shared memory layout: static symbols, then the dynamic one.
        off = 0
        self.shared_offsets = {}
        dyn = []
        for s in module.shared:
            if s.extern:
                dyn.append(s)
                continue
            off = (off + s.align - 1) // s.align * s.align
            self.shared_offsets[s.name] = off
            off += s.size
        off = (off + 15) // 16 * 16
        for s in dyn:
            self.shared_offsets[s.name] = off
        self.shared_size = off + dyn_shared
        # Blocks start 128 bytes apart at least, so that an offset's bank
        # is its bank in the block (test/ptxemu/ptxprofile.py).
        self.S_stride = (self.shared_size + 127) // 128 * 128 or 128
        self.smem = np.full(self.nblk * self.S_stride, shared_fill, np.uint8)
        self.global_symbols = {g.name: gmem.symbols[(id(module), g.name)] for g in module.globals}
        self.param_bytes = params
        self.local_size = fn.local_size
        self.local_stride = (fn.local_size + 15) // 16 * 16
        self.lmem = np.zeros(max(T * self.local_stride, 16), np.uint8)
        self.cp_commits = np.zeros(T, np.int64)
        self.cp_pending = []
        self.pc = None

    def reg(self, name):
        r = self.regs.get(name)
        if r is None:
            ty = self.fn.reg_type(name)
            w = _width(ty)
            r = np.zeros(self.T, bool if w == 1 else _UDT[w])
            self.regs[name] = r
        return r

    def count(self, S):
        return self.T if isinstance(S, slice) else len(S)

    def threads(self, S):
        return np.arange(self.T) if isinstance(S, slice) else S

    def fault(self, ins, msg):
        raise PTXEmulatorError(
            f"kernel {self.fn.name}, line {ins.line} (pc {self.fn.instrs.index(ins)}): "
            f"{ins.text}: {msg}")

    # -- address translation: returns (array, flat element indices) --
    def _resolve(self, space, addr, nbytes, S, ins):
        addr = np.asarray(addr).astype(np.uint64)
        thr = self.threads(S)
        addr = np.broadcast_to(addr, thr.shape)
        if space == "generic":
            a = addr
            in_sh = (a >= np.uint64(SHARED_WINDOW)) & (a < np.uint64(SHARED_WINDOW + WINDOW_SIZE))
            in_lo = (a >= np.uint64(LOCAL_WINDOW)) & (a < np.uint64(LOCAL_WINDOW + WINDOW_SIZE))
            if in_sh.all():
                return self._resolve("shared", a - np.uint64(SHARED_WINDOW), nbytes, S, ins)
            if in_lo.all():
                return self._resolve("local", a - np.uint64(LOCAL_WINDOW), nbytes, S, ins)
            if (in_sh | in_lo).any():
                self.fault(ins, "a generic access mixing state spaces across threads is not emulated")
            space = "global"
        if addr.size and (addr % np.uint64(nbytes) != 0).any():
            bad = addr[addr % np.uint64(nbytes) != 0][0]
            self.fault(ins, f"misaligned {nbytes}-byte {space} access at {int(bad):#x}")
        if space == "global":
            off = addr.astype(np.int64) - GLOBAL_BASE if addr.size else addr.astype(np.int64)
            cap = len(self.gmem.data)
            okr = (addr >= np.uint64(GLOBAL_BASE)) & (off + nbytes <= cap)
            if okr.all():
                ok = self.gmem.valid[off] & self.gmem.valid[off + nbytes - 1]
            else:
                ok = okr
            if not ok.all():
                i = np.nonzero(~ok)[0][0]
                self.fault(ins, f"out-of-bounds global access of {nbytes} bytes by thread "
                                f"{self._thread_name(thr[i])}: {self.gmem.describe(int(addr[i]))}")
            return self.gmem.data, off
        if space == "shared":
            bad = addr + np.uint64(nbytes) > np.uint64(self.shared_size)
            if bad.any():
                i = np.nonzero(bad)[0][0]
                self.fault(ins, f"out-of-bounds shared access of {nbytes} bytes at offset "
                                f"{int(addr[i]):#x} by thread {self._thread_name(thr[i])} "
                                f"(shared memory is {self.shared_size} bytes)")
            return self.smem, self.thread_block[thr] * self.S_stride + addr.astype(np.int64)
        if space == "local":
            bad = addr + np.uint64(nbytes) > np.uint64(self.local_size)
            if bad.any():
                self.fault(ins, "out-of-bounds local access")
            return self.lmem, thr * self.local_stride + addr.astype(np.int64)
        self.fault(ins, f"{space} space access is not emulated")

    def _describe_partial_warp(self, thr, status):
        """Where the lanes of the first partial warp among `thr` are."""
        first = int(thr[0]) // 32 * 32
        for t in thr:
            w = int(t) // 32 * 32
            lanes = np.arange(w, w + 32)
            if not np.isin(lanes, thr).all():
                first = w
                break
        lanes = np.arange(first, first + 32)
        here = np.isin(lanes, thr)
        names = {0: "runnable", 1: "waiting at a barrier", 2: "exited"}
        others = {}
        for t in lanes[~here]:
            key = (int(self.pc[t]), names[int(self._status[t])])
            others.setdefault(key, []).append(int(t) - first)
        where = "; ".join(
            f"lanes {v} at pc {pc} (line {self.fn.instrs[pc].line if pc < len(self.fn.instrs) else '?'}, "
            f"{st})" for (pc, st), v in sorted(others.items()))
        return (f"warp {self.special['warpid'][first]} of block {self._thread_name(first)}: "
                f"lanes {(np.nonzero(here)[0]).tolist()} here, {where}")

    def _thread_name(self, t):
        t = int(t)
        return (f"(block {self.special['ctaid.x'][t]},{self.special['ctaid.y'][t]},"
                f"{self.special['ctaid.z'][t]} thread {self.special['tid.x'][t]},"
                f"{self.special['tid.y'][t]},{self.special['tid.z'][t]})")

    def _profile(self, mem, off, nbytes, S, ins, store):
        if mem is self.smem:
            self.profile.shared(ins, self.threads(S), off, nbytes)
        elif mem is self.gmem.data:
            self.profile.global_access(ins, self.threads(S), off, nbytes, store)

    def load(self, space, addr, w, n, S, ins):
        nb = w // 8
        mem, off = self._resolve(space, addr, nb * n, S, ins)
        if self.profile is not None:
            self._profile(mem, off, nb * n, S, ins, store=False)
        if nb == 1:
            idx = off[:, None] + np.arange(n)
            return mem[idx]
        view = mem.view(_UDT[w])
        idx = (off // nb)[:, None] + np.arange(n)
        return view[idx]

    def store(self, space, addr, w, n, S, vals, ins):
        nb = w // 8
        mem, off = self._resolve(space, addr, nb * n, S, ins)
        if self.profile is not None:
            self._profile(mem, off, nb * n, S, ins, store=True)
        if nb == 1:
            mem[off[:, None] + np.arange(n)] = vals
            return
        view = mem.view(_UDT[w])
        view[(off // nb)[:, None] + np.arange(n)] = vals

    def generic_to_shared(self, ad, ins):
        a = ad.astype(np.uint64)
        if not ((a >= np.uint64(SHARED_WINDOW)) & (a < np.uint64(SHARED_WINDOW + WINDOW_SIZE))).all():
            self.fault(ins, "generic ldmatrix address outside shared memory")
        return a - np.uint64(SHARED_WINDOW)

    def shared_read_rows(self, row_addr, thr, ins):
        """8 b16 elements at each (16-byte aligned) shared address."""
        mem, off = self._resolve("shared", row_addr, 16, thr, ins)
        if self.profile is not None:
            # Lanes 8m..8m+7 give matrix m's rows: one 16-byte phase each.
            self.profile.shared(ins, thr, off, 16)
        return mem.view(np.uint16)[(off // 2)[:, None] + np.arange(8)]

    # -- cp.async --
    def cp_issue(self, dst, src, size, srcsize, S, ins):
        thr = self.threads(S)
        n = len(thr)
        dst = np.broadcast_to(np.asarray(dst).astype(np.uint64), (n,))
        src = np.broadcast_to(np.asarray(src).astype(np.uint64), (n,))
        dmem, doff = self._resolve("shared", dst, size, S, ins)
        prof = self.profile
        if prof is not None:
            prof.shared(ins, thr, doff, size)
        data = np.zeros((n, size), np.uint8)
        if srcsize is None:
            gm, goff = self._resolve("global", src, size, S, ins)
            if prof is not None:
                prof.global_access(ins, thr, goff, size, store=False)
            data[:] = gm[goff[:, None] + np.arange(size)]
        else:
            ss = np.broadcast_to(srcsize.astype(np.int64), (n,))
            if (ss > size).any() or (ss < 0).any():
                self.fault(ins, "cp.async src-size larger than cp-size")
            full = ss == size
            part = ~full
            if full.any():
                sub = thr[full]
                gm, goff = self._resolve("global", src[full], size, sub, ins)
                if prof is not None:
                    prof.global_access(ins, sub, goff, size, store=False)
                data[full] = gm[goff[:, None] + np.arange(size)]
            for k in np.unique(ss[part]):
                if k == 0:
                    continue
                m = part & (ss == k)
                sub = thr[m]
                # Only the first k bytes are read; check each byte.
                for j in range(int(k)):
                    gm, goff = self._resolve("global", src[m] + np.uint64(j), 1, sub, ins)
                    data[m, j] = gm[goff]
                if prof is not None:
                    prof.global_access(ins, sub, goff - (int(k) - 1), int(k), store=False)
        self.cp_pending.append([thr.copy(), self.cp_commits[thr].copy(), doff, data,
                                np.zeros(n, bool)])

    def cp_wait(self, S, nkeep):
        if not self.cp_pending:
            return
        inset = np.zeros(self.T, bool)
        inset[S] = True
        keep = []
        for rec in self.cp_pending:
            thr, grp, doff, data, done = rec
            m = inset[thr] & (grp < self.cp_commits[thr] - nkeep) & ~done
            if m.any():
                self.smem[doff[m][:, None] + np.arange(data.shape[1])] = data[m]
                done |= m
            if not done.all():
                keep.append(rec)
        self.cp_pending = keep

    def cp_flush(self, thr_mask):
        keep = []
        for rec in self.cp_pending:
            thr, grp, doff, data, done = rec
            m = thr_mask[thr] & ~done
            if m.any():
                self.smem[doff[m][:, None] + np.arange(data.shape[1])] = data[m]
                done |= m
            if not done.all():
                keep.append(rec)
        self.cp_pending = keep

    # -- scheduler --
    def run(self):
        fn = self.fn
        instrs = fn.instrs
        T = self.T
        pc = np.zeros(T, np.int64)
        # 0: runnable, 1: waiting at a barrier, 2: exited
        status = np.where(self.padding, 2, 0).astype(np.int8)
        self.pc = pc
        self._status = status
        steps = 0
        ninstr = len(instrs)
        full = slice(None)
        rank = fn.rank
        rank_inv = np.empty(len(rank), np.int64)
        rank_inv[rank] = np.arange(len(rank))
        # Which threads may run: "lockstep" runs the lowest PC of all
        # threads; "warps-descending"/"warps-ascending" run the warps of a
        # block one at a time, each until it waits at a barrier or exits, in
        # that order of warp index, so that shared memory a warp reads before
        # a barrier that should have ordered it shows (blocks still run
        # together, vectorized).
        warp_key = None
        if self.schedule == "warps-descending":
            warp_key = -self.special["warpid"].astype(np.int64)
        elif self.schedule == "warps-ascending":
            warp_key = self.special["warpid"].astype(np.int64)
        elif self.schedule != "lockstep":
            raise PTXEmulatorError(f"unknown schedule {self.schedule!r}")
        while True:
            runnable = status == 0
            if not runnable.any():
                alive = status != 2
                if not alive.any():
                    break
                waiting = status == 1
                per_blk_alive = np.bincount(self.thread_block[alive], minlength=self.nblk)
                per_blk_wait = np.bincount(self.thread_block[waiting], minlength=self.nblk)
                release = (per_blk_wait > 0) & (per_blk_wait == per_blk_alive)
                if not release.any():
                    raise PTXEmulatorError(f"kernel {fn.name}: deadlock (threads wait at a barrier)")
                rel = waiting & release[self.thread_block]
                status[rel] = 0
                continue
            if warp_key is not None:
                kmin = warp_key[runnable].min()
                runnable = runnable & (warp_key == kmin)
            rk = rank[pc]
            r = int(rk[runnable].min()) if not runnable.all() else int(rk.min())
            p = int(rank_inv[r])
            steps += 1
            if steps > self.max_steps:
                raise PTXEmulatorError(f"kernel {fn.name}: more than {self.max_steps} steps (an endless loop?)")
            if p >= ninstr:
                raise PTXEmulatorError(f"kernel {fn.name}: fell off the end of the function")
            at = runnable & (rk == r)
            if at.all():
                idx = None
                S = full
            else:
                idx = np.nonzero(at)[0]
                S = idx
            ins = instrs[p]
            if self.profile is not None:
                self.profile.issued(ins, idx, T)
            # The guard.
            if ins.guard is not None:
                g = self.reg(ins.guard)[S]
                if ins.guard_neg:
                    g = ~g
                allidx = np.arange(T) if idx is None else idx
                exe = allidx[g]
                skip = allidx[~g]
                if len(skip):
                    pc[skip] += 1
                if len(exe) == 0:
                    continue
                S = full if len(exe) == T else exe
                idx = None if len(exe) == T else exe
            kind = ins.kind
            try:
                if kind == "alu":
                    ins.fn(self, S)
                    pc[S] += 1
                elif kind == "bra":
                    pc[S] = ins.target
                elif kind == "warp":
                    thr = np.arange(T) if idx is None else idx
                    warps = _warps_of(thr)
                    if warps is None:
                        self.fault(ins, "a warp-collective instruction executed by part of a warp "
                                        "(divergent or exited lanes): "
                                        + self._describe_partial_warp(thr, status))
                    ins.fn(self, S, warps)
                    pc[S] += 1
                elif kind == "bar":
                    status[S] = 1
                    pc[S] += 1
                elif kind in ("ret", "exit"):
                    status[S] = 2
                    if self.cp_pending:
                        m = np.zeros(T, bool)
                        m[S] = True
                        self.cp_flush(m)
                else:
                    raise PTXEmulatorError(f"internal: kind {kind}")
            except PTXEmulatorError:
                raise
            except (ValueError, IndexError, TypeError, KeyError) as e:
                raise PTXEmulatorError(
                    f"kernel {fn.name}, line {ins.line} (pc {p}): {ins.text}: emulator error: {e!r}") from e
        self.steps = steps


def _schedule_ranks(fn):
    """A priority for every instruction: the scheduler runs the threads at
    the lowest one. Basic blocks are ranked in a topological order of the
    CFG without its back edges (ties by position in the text), so that a
    thread that branched ahead waits for the others of its warp where the
    paths join, as the hardware reconverges warps, even where the text puts
    a loop's latch above its header."""
    instrs = fn.instrs
    n = len(instrs)
    leaders = {0}
    for i, ins in enumerate(instrs):
        if ins.base in ("bra", "ret", "exit"):
            leaders.add(i + 1)
        if ins.base == "bra":
            leaders.add(ins.target)
    leaders = sorted(x for x in leaders if x < n)
    start_of = {s: k for k, s in enumerate(leaders)}
    ends = leaders[1:] + [n]
    succ = []
    for k, (s, e) in enumerate(zip(leaders, ends)):
        last = instrs[e - 1]
        out = []
        if last.base == "bra":
            out.append(start_of[last.target])
            if last.guard is not None and e < n:
                out.append(start_of[e])
        elif last.base in ("ret", "exit"):
            if last.guard is not None and e < n:
                out.append(start_of[e])
        elif e < n:
            out.append(start_of[e])
        succ.append(sorted(set(out)))
    nb = len(leaders)
    # Back edges: to a block on the DFS stack.
    color = [0] * nb
    back = set()
    stack = [(0, iter(succ[0]))]
    color[0] = 1
    while stack:
        b, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            color[b] = 2
            stack.pop()
            continue
        if color[nxt] == 1:
            back.add((b, nxt))
        elif color[nxt] == 0:
            color[nxt] = 1
            stack.append((nxt, iter(succ[nxt])))
    indeg = [0] * nb
    for b in range(nb):
        for c in succ[b]:
            if (b, c) not in back:
                indeg[c] += 1
    import heapq
    ready = [b for b in range(nb) if indeg[b] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        b = heapq.heappop(ready)
        order.append(b)
        for c in succ[b]:
            if (b, c) in back:
                continue
            indeg[c] -= 1
            if indeg[c] == 0:
                heapq.heappush(ready, c)
    if len(order) != nb:
        raise PTXEmulatorError(f"{fn.name}: cannot order the CFG")
    rank = np.zeros(n + 1, np.int64)
    r = 0
    for b in order:
        for pc in range(leaders[b], ends[b]):
            rank[pc] = r
            r += 1
    rank[n] = r
    return rank


def _compile(module, fn):
    if fn.compiled:
        return
    c = _Compiler(module, fn)
    for pc, ins in enumerate(fn.instrs):
        ins.pc = pc
        try:
            c.compile(ins)
        except PTXEmulatorError as e:
            raise PTXEmulatorError(f"kernel {fn.name}, line {ins.line}: {ins.text}: {e}") from None
    fn.rank = _schedule_ranks(fn)
    fn.compiled = True


def prepare_globals(module, gmem):
    """Allocates the module's .global/.const symbols in `gmem` (once)."""
    for g in module.globals:
        key = (id(module), g.name)
        if key in gmem.symbols:
            continue
        addr = gmem.alloc(g.size, label=g.name, fill=0)
        if g.data is not None:
            gmem.write(addr, g.data[:g.size])
        gmem.symbols[key] = addr


def launch(module, kernel, gmem, grid, block, dynamic_shared_bytes, args,
           shared_fill=0xFF, max_threads_per_chunk=1 << 15, max_steps=2_000_000,
           stats=None, schedule="warps-descending", profile=None):
    """Runs `kernel` of `module` over `grid` x `block` threads. `args`: one
    integer per kernel parameter (pointers are fake device addresses of
    `gmem`, or scalars). `profile`: a test/ptxemu/ptxprofile.py `Profile` that
    counts the launch's memory traffic and instructions."""
    if isinstance(module, str):
        module = parse_ptx(module)
    fn = module.functions.get(kernel)
    if fn is None or not fn.is_entry:
        raise PTXEmulatorError(f"no .entry {kernel} in the module "
                               f"(has {sorted(module.functions)})")
    _compile(module, fn)
    prepare_globals(module, gmem)
    if len(args) != len(fn.params):
        raise PTXEmulatorError(f"kernel {kernel} takes {len(fn.params)} parameters, got {len(args)}")
    params = np.zeros(max(fn.param_size, 8) + 8, np.uint8)
    for (name, ty, size, align), value in zip(fn.params, args):
        off = fn.param_offsets[name]
        w = _width(ty)
        if ty.startswith("f"):
            b = np.array([value], _FDT[w]).view(np.uint8)
        else:
            b = np.array([int(value) & ((1 << w) - 1)], _UDT[w]).view(np.uint8)
        params[off:off + size] = b.reshape(-1)[:size]
    grid = tuple(int(x) for x in grid) + (1,) * (3 - len(grid))
    block = tuple(int(x) for x in block) + (1,) * (3 - len(block))
    nblocks = grid[0] * grid[1] * grid[2]
    nthr = block[0] * block[1] * block[2]
    if nthr > 1024:
        raise PTXEmulatorError(f"block of {nthr} threads")
    bpad = (nthr + 31) // 32 * 32
    per_chunk = max(1, max_threads_per_chunk // bpad)
    total_steps = 0
    if profile is not None:
        profile.begin_launch(fn, grid, block, int(dynamic_shared_bytes), len(gmem.data))
    with np.errstate(all="ignore"):
        for start in range(0, nblocks, per_chunk):
            ids = list(range(start, min(nblocks, start + per_chunk)))
            st = _Launch(module, fn, gmem, grid, block, int(dynamic_shared_bytes),
                         params, ids, shared_fill, max_steps, schedule, profile)
            st.run()
            total_steps += st.steps
            if st.cp_pending:
                st.cp_flush(np.ones(st.T, bool))
    if profile is not None:
        profile.end_launch()
    if stats is not None:
        stats.append({"kernel": kernel, "grid": grid, "block": block,
                      "steps": total_steps})
    return total_steps
