"""Memory-traffic counters of the PTX emulator (test/ptxemu/ptxprofile.py):
shared-memory wavefronts and global sectors counted on hand-written access
patterns whose costs are known, and the generated kernels' tiles counted
free of bank conflicts: the swizzled and padded layouts of docs/gpu.md
(ldmatrix, tf32 fragments, cp.async writes, mma result stores). No GPU
needed.
"""

import pathlib
import sys

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
EMU_DIR = REPO / "test" / "ptxemu"
if str(EMU_DIR) not in sys.path:
    sys.path.insert(0, str(EMU_DIR))

import ptxemu  # noqa: E402
from ptxprofile import Profile  # noqa: E402

# Each of the 64 threads (two warps) stores and loads `WIDTH` bytes of
# shared memory at tid * %stride, and loads 4 bytes of global memory at
# in + tid * %gstride, which it stores to out + tid * 4.
ACCESS = """
.version 7.0
.target sm_80
.address_size 64
.extern .shared .align 16 .b8 smem[];
.visible .entry k(.param .u64 p_in, .param .u64 p_out, .param .u32 p_stride,
                  .param .u32 p_gstride)
{{
	.reg .b32 %r<16>;
	.reg .b64 %rd<12>;
	ld.param.b64 %rd1, [p_in];
	ld.param.b64 %rd2, [p_out];
	ld.param.b32 %r1, [p_stride];
	ld.param.b32 %r2, [p_gstride];
	mov.u32 %r3, %tid.x;
	mul.lo.u32 %r4, %r3, %r1;
	cvt.u64.u32 %rd3, %r4;
	mov.u64 %rd4, smem;
	add.s64 %rd5, %rd4, %rd3;
	mov.b32 %r5, 7;
	{store}
	bar.sync 0;
	{load}
	mul.wide.u32 %rd6, %r3, %r2;
	add.s64 %rd7, %rd1, %rd6;
	ld.global.b32 %r9, [%rd7];
	add.s32 %r9, %r9, %r6;
	mul.wide.u32 %rd8, %r3, 4;
	add.s64 %rd9, %rd2, %rd8;
	st.global.b32 [%rd9], %r9;
	ret;
}}
"""

WIDTHS = {
    4: ("st.shared.b32 [%rd5], %r5;", "ld.shared.b32 %r6, [%rd5];"),
    8: ("st.shared.v2.b32 [%rd5], {%r5, %r5};",
        "ld.shared.v2.b32 {%r6, %r7}, [%rd5];"),
    16: ("st.shared.v4.b32 [%rd5], {%r5, %r5, %r5, %r5};",
         "ld.shared.v4.b32 {%r6, %r7, %r8, %r10}, [%rd5];"),
}


def profile_access(width, stride, gstride=4, threads=64):
    store, load = WIDTHS[width]
    ptx = ACCESS.format(store=store, load=load)
    memory = ptxemu.GlobalMemory()
    nin = max(threads * gstride, 4)
    src = memory.alloc(nin, fill=1)
    dst = memory.alloc(threads * 4)
    prof = Profile()
    ptxemu.launch(ptx, "k", memory, (1, 1, 1), (threads, 1, 1),
                  max(stride * threads + width, 16), [src, dst, stride, gstride],
                  profile=prof)
    (kernel,) = prof.kernels()
    assert memory.read(dst, threads * 4).view(np.int32).tolist() == \
        [0x01010101 + 7] * threads
    return kernel


def site(kernel, cls):
    return [s for s in kernel["sites"] if s["class"] == cls]


@pytest.mark.parametrize("width,stride,per_request", [
    # 4 bytes a lane, one phase of 32 lanes.
    (4, 4, 1),      # consecutive words: one wavefront
    (4, 0, 1),      # one word for all lanes: a broadcast
    (4, 8, 2),      # every other word: two lanes a bank
    (4, 128, 32),   # one bank for all 32 lanes
    # 8 bytes a lane: two phases of 16 lanes.
    (8, 8, 2),
    (8, 16, 4),     # 256 bytes a half-warp: 2-way
    # 16 bytes a lane: four phases of 8 lanes.
    (16, 16, 4),
    (16, 128, 32),  # 8 lanes on the same 4 banks, in each phase
])
def test_shared_wavefronts_per_request(width, stride, per_request):
    k = profile_access(width, stride)
    for cls in ("st.shared", "ld.shared"):
        (s,) = site(k, cls)
        assert s["issued"] == 2
        assert s["wavefronts"] == 2 * per_request, (cls, s)
    # The ideal: one wavefront per 128 distinct bytes of a phase.
    distinct = 4 if stride == 0 else width
    phases = {4: 1, 8: 2, 16: 4}[width]
    assert k["shared_ideal_wavefronts"] == 2 * 2 * max(
        phases, (32 * distinct + 127) // 128)


@pytest.mark.parametrize("gstride,sectors", [(4, 4), (8, 8), (32, 32), (0, 1)])
def test_global_sectors_per_request(gstride, sectors):
    k = profile_access(4, 4, gstride=gstride)
    (load,) = [s for s in site(k, "ld.global")]
    assert load["sectors"] == 2 * sectors
    used = 4 if gstride == 0 else 128
    assert load["bytes"] == 2 * used
    # The stores are consecutive words either way.
    (store,) = site(k, "st.global")
    assert (store["sectors"], store["bytes"]) == (8, 256)
    # Distinct sectors: two warps' loads of one word are one sector.
    assert k["dram_read_bytes"] == 32 * (1 if gstride == 0 else 2 * sectors)
    assert k["dram_write_bytes"] == 256


# ldmatrix .x1: lanes 0-7 give the addresses of 8 rows of 16 bytes at
# tid * %stride; one phase per matrix.
LDMATRIX = """
.version 7.0
.target sm_80
.address_size 64
.extern .shared .align 16 .b8 smem[];
.visible .entry k(.param .u64 p_out, .param .u32 p_stride)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	ld.param.b64 %rd1, [p_out];
	ld.param.b32 %r1, [p_stride];
	mov.u32 %r2, %tid.x;
	and.b32 %r3, %r2, 7;
	mul.lo.u32 %r4, %r3, %r1;
	cvt.u64.u32 %rd2, %r4;
	mov.u64 %rd3, smem;
	add.s64 %rd4, %rd3, %rd2;
	mov.b32 %r5, 0;
	st.shared.v4.b32 [%rd4], {%r5, %r5, %r5, %r5};
	bar.sync 0;
	ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r6}, [%rd4];
	mul.wide.u32 %rd5, %r2, 4;
	add.s64 %rd6, %rd1, %rd5;
	st.global.b32 [%rd6], %r6;
	ret;
}
"""


@pytest.mark.parametrize("pitch,wavefronts", [(16, 1), (128, 8), (144, 1),
                                              (64, 4), (80, 1)])
def test_ldmatrix_rows(pitch, wavefronts):
    memory = ptxemu.GlobalMemory()
    out = memory.alloc(32 * 4)
    prof = Profile()
    ptxemu.launch(LDMATRIX, "k", memory, (1, 1, 1), (32, 1, 1), 8 * pitch,
                  [out, pitch], profile=prof)
    (k,) = prof.kernels()
    (s,) = site(k, "ldmatrix")
    assert (s["wavefronts"], s["ideal"]) == (wavefronts, 1)


def test_counts_add_up_over_launches_and_blocks():
    prof = Profile()
    memory = ptxemu.GlobalMemory()
    out = memory.alloc(32 * 4 * 3)
    for _ in range(2):
        ptxemu.launch(LDMATRIX, "k", memory, (3, 1, 1), (32, 1, 1), 1024,
                      [out, 128], profile=prof)
    (k,) = prof.kernels()
    assert k["launches"] == 2
    (s,) = site(k, "ldmatrix")
    # 3 blocks of one warp, twice: 6 requests of 8 wavefronts.
    assert (s["issued"], s["wavefronts"], s["ideal"]) == (6, 48, 6)
    assert "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r6}, [%rd4]: " \
        "48 wavefronts, ideal 6" in prof.report()


# ---------------------------------------------------------------------------
# Generated kernels: the tiles that warps access a few rows at a time are
# laid out free of bank conflicts, and global tiles move in whole sectors.
# ---------------------------------------------------------------------------

def _emulator_programs():
    # The programs, their lowering and the comparison of
    # test_ptx_emulator.py (python/tests is on the path, as for conftest).
    import test_ptx_emulator
    return test_ptx_emulator


# Programs whose kernels take no wavefront beyond what their bytes need:
# ldmatrix on swizzled loaded tiles and padded computed ones, tf32 A and B
# fragments, cp.async writes, mma result stores (f16 by whole warps, f32
# by half-warps), and a sum and an RMS norm over a loaded tile's 128-byte
# rows by 8 lanes a row (4 rows a warp, each group starting elsewhere).
CONFLICT_FREE = [
    ("matmul_f16", "sm_80"), ("matmul_bf16", "sm_90"),
    ("matmul_f32_tf32", "sm_80"), ("matmul_long_k_f32", "sm_90"),
    ("gated_mlp_f16", "sm_80"), ("gated_mlp_f32", "sm_90"),
    ("lora_f16", "sm_80"), ("attention_f32", "sm_80"),
    ("attention_f16", "sm_90"), ("rmsnorm_matmul_f16", "sm_80"),
    ("loaded_row_reductions_f16", "sm_80"),
]


@pytest.mark.parametrize("name,chip", CONFLICT_FREE,
                         ids=[f"{n}-{c}" for n, c in CONFLICT_FREE])
def test_generated_tiles_are_free_of_bank_conflicts(name, chip):
    emu = _emulator_programs()
    low = emu.lowered(name, chip)
    prof = Profile()
    results = emu.run_plan(low.plan, low.ptx, low.function, low.inputs,
                           profile=prof)
    emu.check(results, low.expected, low.dtype, f"{name} on {chip}")
    for k in prof.kernels():
        assert k["shared_wavefronts"] > 0
        conflicts = [f"line {c['line']}: {c['text']}: {c['wavefronts']} for "
                     f"{c['ideal']}" for c in k["shared_conflicts"]]
        assert not conflicts, (k["name"], conflicts)
        # Tiles move in 16-byte chunks of whole rows: every sector loaded
        # is used.
        assert k["global_load_bytes"] == 32 * k["global_load_sectors"], \
            k["global_uncoalesced"]
