"""Writes three functions of a long elementwise chain for
verify-many-loop-nests.mlir: @reference, @chain (the same ops, its
candidate) and @changed (one constant differs, its candidate too)."""

import sys

OPS = int(sys.argv[1])
T = "tensor<16x64xf32>"


def chain(name, attrs, changed_at=None):
    lines = [f"func.func @{name}(%x: {T}, %y: {T}) -> {T}{attrs} {{"]
    prev = "%x"
    for i in range(OPS):
        scale = "2.500000e-01" if i == changed_at else "5.000000e-01"
        op = [f"kernel.mul_scalar {prev}, {scale} : {T}",
              f"kernel.add {prev}, %y : {T}, {T}",
              f"kernel.mul {prev}, %y : {T}, {T}"][i % 3]
        lines.append(f"  %v{i} = {op}")
        prev = f"%v{i}"
    lines += [f"  return {prev} : {T}", "}"]
    return "\n".join(lines)


link = " attributes {mlsopt.equivalent_to = @reference}"
print(chain("reference", ""))
print(chain("chain", link))
print(chain("changed", link, changed_at=OPS // 2))
