#!/usr/bin/env python3
"""Writes a function of L LLaMA-style MLP layers in the kernel dialect.

Each layer is h + down(silu(gate(n)) * up(n)) with n = rms_norm(h): seven
kernel ops, f16, 8 tokens of width 256 and an intermediate size of 512. A
model repeats its layers, so each layer's subprograms are the first
layer's search problems again (docs/search.md, "Repeated subprograms"):

    python3 bench/repeated_layers.py 40 > /tmp/layers.mlir
    time build/bin/mlsopt-opt --superoptimize /tmp/layers.mlir -o /dev/null
"""

import argparse

TOKENS, WIDTH, HIDDEN = 8, 256, 512


def tensor(rows, cols):
    return f"tensor<{rows}x{cols}xf16>"


def layers(count):
    h, w_in, w_out = tensor(TOKENS, WIDTH), tensor(WIDTH, HIDDEN), tensor(HIDDEN, WIDTH)
    g = tensor(TOKENS, HIDDEN)
    args = [f"%h0: {h}"]
    body = []
    for l in range(count):
        args += [f"%gate{l}: {w_in}", f"%up{l}: {w_in}", f"%down{l}: {w_out}"]
        body += [
            f"  %n{l} = kernel.rms_norm %h{l} {{epsilon = 1.0e-06 : f64}} : {h}",
            f"  %a{l} = kernel.matmul %n{l}, %gate{l} : {h}, {w_in}",
            f"  %b{l} = kernel.matmul %n{l}, %up{l} : {h}, {w_in}",
            f"  %s{l} = kernel.silu %a{l} : {g}",
            f"  %m{l} = kernel.mul %s{l}, %b{l} : {g}, {g}",
            f"  %o{l} = kernel.matmul %m{l}, %down{l} : {g}, {w_out}",
            f"  %h{l + 1} = kernel.add %h{l}, %o{l} : {h}, {h}",
        ]
    return "\n".join(
        [f"func.func @layers({', '.join(args)}) -> {h} {{"]
        + body
        + [f"  return %h{count} : {h}", "}"]
    ) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("layers", type=int, help="how many layers (at least 1)")
    count = parser.parse_args().layers
    if count < 1:
        parser.error("layers must be at least 1")
    print(layers(count), end="")


if __name__ == "__main__":
    main()
