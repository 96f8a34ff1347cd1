// --emit-ptx prints PTX only: an object for another target, or an empty
// one, is an error on its gpu.binary (both were printed as PTX).
// RUN: not mlsopt-translate --emit-ptx --split-input-file %s 2>&1 | FileCheck %s

// CHECK: error: gpu.binary @rocm holds an object for #rocdl.target<chip = "gfx90a">, not an NVVM target's PTX
module attributes {gpu.container_module} {
  gpu.binary @rocm [#gpu.object<#rocdl.target<chip = "gfx90a">, assembly = "v_add_f32 v0, v1, v2">]
}

// -----

// CHECK: error: gpu.binary @empty holds an empty object
module attributes {gpu.container_module} {
  gpu.binary @empty [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = "">]
}
