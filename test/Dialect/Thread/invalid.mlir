// RUN: mlsopt-opt %s -split-input-file -verify-diagnostics

// Bodies of thread graphs.

func.func @foreign_op_in_graph(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m, %r = block.for_loop 1 iterations accumulate (sum, max) : tensor<8x64xf16>, tensor<8x1xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %s = block.reduce_max %t dim 1 : tensor<8x64xf16>
      block.yield %t, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    %y = thread.graph (%m) : (tensor<8x64xf16>) -> tensor<8x64xf16> {
    ^bb0(%a: f16):
      // expected-error @+1 {{'arith.addf' op cannot appear in a thread graph; thread graphs hold elementwise thread ops only}}
      %c = arith.addf %a, %a : f16
      thread.yield %c : f16
    }
    block.store %y, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @too_many_yielded_values(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m, %r = block.for_loop 1 iterations accumulate (sum, max) : tensor<8x64xf16>, tensor<8x1xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %s = block.reduce_max %t dim 1 : tensor<8x64xf16>
      block.yield %t, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    %y = thread.graph (%m) : (tensor<8x64xf16>) -> tensor<8x64xf16> {
    ^bb0(%a: f16):
      %c = thread.unary exp %a : f16
      // expected-error @+1 {{'thread.yield' op yields 2 values but the thread graph has 1 results}}
      thread.yield %c, %c : f16, f16
    }
    block.store %y, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @implicit_empty_yield(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m, %r = block.for_loop 1 iterations accumulate (sum, max) : tensor<8x64xf16>, tensor<8x1xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %s = block.reduce_max %t dim 1 : tensor<8x64xf16>
      block.yield %t, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    // expected-error @below {{'thread.yield' op yields 0 values but the thread graph has 1 results}}
    %y = thread.graph (%m) : (tensor<8x64xf16>) -> tensor<8x64xf16> {
    ^bb0(%a: f16):
      %c = thread.unary exp %a : f16
    }
    block.store %y, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @yield_type_mismatch(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m, %r = block.for_loop 1 iterations accumulate (sum, max) : tensor<8x64xf16>, tensor<8x1xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %s = block.reduce_max %t dim 1 : tensor<8x64xf16>
      block.yield %t, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    %y, %z = thread.graph (%m) : (tensor<8x64xf16>) -> (tensor<8x64xf16>, tensor<8x64xf32>) {
    ^bb0(%a: f16):
      %c = thread.unary exp %a : f16
      // expected-error @+1 {{'thread.yield' op value #1 has type 'f16' but result #1 holds 'f32'}}
      thread.yield %c, %c : f16, f16
    }
    block.store %y, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @yield_integer(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m, %r = block.for_loop 1 iterations accumulate (sum, max) : tensor<8x64xf16>, tensor<8x1xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %s = block.reduce_max %t dim 1 : tensor<8x64xf16>
      block.yield %t, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    %y = thread.graph (%m) : (tensor<8x64xf16>) -> tensor<8x64xf16> {
    ^bb0(%a: f16):
      %c = arith.constant 1 : i32
      // expected-error @+1 {{'thread.yield' op operand #0 must be variadic of 16-bit float or bfloat16 type or 32-bit float, but got 'i32'}}
      thread.yield %c : i32
    }
    block.store %y, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @body_argument_count(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m, %r = block.for_loop 1 iterations accumulate (sum, max) : tensor<8x64xf16>, tensor<8x1xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %s = block.reduce_max %t dim 1 : tensor<8x64xf16>
      block.yield %t, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    // expected-error @+1 {{'thread.graph' op body must have one argument per operand (2), got 1}}
    %y = thread.graph (%m, %r) : (tensor<8x64xf16>, tensor<8x1xf16>) -> tensor<8x64xf16> {
    ^bb0(%a: f16):
      thread.yield %a : f16
    }
    block.store %y, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @body_without_arguments(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m, %r = block.for_loop 1 iterations accumulate (sum, max) : tensor<8x64xf16>, tensor<8x1xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %s = block.reduce_max %t dim 1 : tensor<8x64xf16>
      block.yield %t, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    // expected-error @+1 {{'thread.graph' op body must have one argument per operand (1), got 0}}
    %y = thread.graph (%m) : (tensor<8x64xf16>) -> tensor<8x64xf16> {
    }
    block.store %y, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @body_argument_type(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m, %r = block.for_loop 1 iterations accumulate (sum, max) : tensor<8x64xf16>, tensor<8x1xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %s = block.reduce_max %t dim 1 : tensor<8x64xf16>
      block.yield %t, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    // expected-error @+1 {{'thread.graph' op body argument #1 must be an element of operand #1 ('f16'), got 'f32'}}
    %y = thread.graph (%m, %r) : (tensor<8x64xf16>, tensor<8x1xf16>) -> tensor<8x64xf16> {
    ^bb0(%a: f16, %b: f32):
      thread.yield %a : f16
    }
    block.store %y, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @body_argument_is_a_tile(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m, %r = block.for_loop 1 iterations accumulate (sum, max) : tensor<8x64xf16>, tensor<8x1xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %s = block.reduce_max %t dim 1 : tensor<8x64xf16>
      block.yield %t, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    // expected-error @+1 {{'thread.graph' op body argument #0 must be an element of operand #0 ('f16'), got 'tensor<8x64xf16>'}}
    %y = thread.graph (%m) : (tensor<8x64xf16>) -> tensor<8x64xf16> {
    ^bb0(%a: tensor<8x64xf16>):
      %e = block.exp %a : tensor<8x64xf16>
      thread.yield
    }
    block.store %y, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

// Shapes of thread graphs.

func.func @operand_does_not_broadcast(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m, %r = block.for_loop 1 iterations accumulate (sum, max) : tensor<8x64xf16>, tensor<8x1xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %s = block.reduce_max %t dim 1 : tensor<8x64xf16>
      block.yield %t, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    %q = block.concat %r, %r dim 1 : tensor<8x1xf16>, tensor<8x1xf16>
    // expected-error @+1 {{'thread.graph' op operand #1 of shape 8x2 does not broadcast to the result shape 8x64}}
    %y = thread.graph (%m, %q) : (tensor<8x64xf16>, tensor<8x2xf16>) -> tensor<8x64xf16> {
    ^bb0(%a: f16, %b: f16):
      %c = thread.binary add %a, %b : f16
      thread.yield %c : f16
    }
    block.store %y, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @operand_larger_than_result(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m, %r = block.for_loop 1 iterations accumulate (sum, max) : tensor<8x64xf16>, tensor<8x1xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %s = block.reduce_max %t dim 1 : tensor<8x64xf16>
      block.yield %t, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    // expected-error @+1 {{'thread.graph' op operand #0 of shape 8x64 does not broadcast to the result shape 8x1}}
    %y = thread.graph (%m, %r) : (tensor<8x64xf16>, tensor<8x1xf16>) -> tensor<8x1xf16> {
    ^bb0(%a: f16, %b: f16):
      %c = thread.binary sub %a, %b : f16
      thread.yield %c : f16
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @operand_of_higher_rank(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m, %r = block.for_loop 1 iterations accumulate (sum, max) : tensor<8x64xf16>, tensor<8x1xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %s = block.reduce_max %t dim 1 : tensor<8x64xf16>
      block.yield %t, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    // expected-error @+1 {{'thread.graph' op operand #0 of shape 8x64 does not broadcast to the result shape 64}}
    %y = thread.graph (%m) : (tensor<8x64xf16>) -> tensor<64xf16> {
    ^bb0(%a: f16):
      thread.yield %a : f16
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @results_of_different_shapes(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m, %r = block.for_loop 1 iterations accumulate (sum, max) : tensor<8x64xf16>, tensor<8x1xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %s = block.reduce_max %t dim 1 : tensor<8x64xf16>
      block.yield %t, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    // expected-error @+1 {{'thread.graph' op results must all have one shape, got 'tensor<8x64xf16>' and 'tensor<8x1xf16>'}}
    %y, %z = thread.graph (%m, %r) : (tensor<8x64xf16>, tensor<8x1xf16>) -> (tensor<8x64xf16>, tensor<8x1xf16>) {
    ^bb0(%a: f16, %b: f16):
      thread.yield %a, %b : f16, f16
    }
    block.store %y, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @no_results(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m, %r = block.for_loop 1 iterations accumulate (sum, max) : tensor<8x64xf16>, tensor<8x1xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %s = block.reduce_max %t dim 1 : tensor<8x64xf16>
      block.yield %t, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    // expected-error @+1 {{'thread.graph' op must produce at least one result}}
    thread.graph (%m) : (tensor<8x64xf16>) -> () {
    ^bb0(%a: f16):
      thread.yield
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

// Where thread graphs and thread ops may appear.

func.func @graph_outside_block_graph(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  // expected-error @+1 {{'thread.graph' op must be part of a block graph (directly in a kernel.custom or block.for_loop body)}}
  %y = thread.graph (%x) : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%a: f16):
    thread.yield %a : f16
  }
  return %y : tensor<8x64xf16>
}

// -----

func.func @graph_inside_graph(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m, %r = block.for_loop 1 iterations accumulate (sum, max) : tensor<8x64xf16>, tensor<8x1xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %s = block.reduce_max %t dim 1 : tensor<8x64xf16>
      block.yield %t, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    %y = thread.graph (%m) : (tensor<8x64xf16>) -> tensor<8x64xf16> {
    ^bb0(%a: f16):
      // expected-error @+1 {{'thread.graph' op must be part of a block graph (directly in a kernel.custom or block.for_loop body)}}
      %g = thread.graph (%m) : (tensor<8x64xf16>) -> tensor<8x64xf16> {
      ^bb0(%b: f16):
        thread.yield %b : f16
      }
      thread.yield %a : f16
    }
    block.store %y, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @graph_reads_kernel_input(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m, %r = block.for_loop 1 iterations accumulate (sum, max) : tensor<8x64xf16>, tensor<8x1xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %s = block.reduce_max %t dim 1 : tensor<8x64xf16>
      block.yield %t, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    // expected-error @+1 {{'thread.graph' op uses kernel input #0 directly; block graphs read inputs only through block.load}}
    %y = thread.graph (%in0) : (tensor<8x64xf16>) -> tensor<8x64xf16> {
    ^bb0(%a: f16):
      thread.yield %a : f16
    }
    block.store %y, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @unary_outside_graph(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m, %r = block.for_loop 1 iterations accumulate (sum, max) : tensor<8x64xf16>, tensor<8x1xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %s = block.reduce_max %t dim 1 : tensor<8x64xf16>
      block.yield %t, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    // expected-error @+1 {{'thread.unary' op expects parent op 'thread.graph'}}
    %u = thread.unary exp %m : tensor<8x64xf16>
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @yield_outside_graph(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m, %r = block.for_loop 1 iterations accumulate (sum, max) : tensor<8x64xf16>, tensor<8x1xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %s = block.reduce_max %t dim 1 : tensor<8x64xf16>
      block.yield %t, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    // expected-error @+1 {{'thread.yield' op expects parent op 'thread.graph'}}
    thread.yield
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @binary_in_func(%a: f32, %b: f32) -> f32 {
  // expected-error @+1 {{'thread.binary' op expects parent op 'thread.graph'}}
  %c = thread.binary add %a, %b : f32
  return %c : f32
}

// -----

// Thread ops.

func.func @unknown_unary_kind(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m, %r = block.for_loop 1 iterations accumulate (sum, max) : tensor<8x64xf16>, tensor<8x1xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %s = block.reduce_max %t dim 1 : tensor<8x64xf16>
      block.yield %t, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    %y = thread.graph (%m) : (tensor<8x64xf16>) -> tensor<8x64xf16> {
    ^bb0(%a: f16):
      // expected-error @+1 {{unknown unary op 'tan'; expected one of exp, log, sqrt, rsqrt, square, silu, sigmoid, gelu, relu, tanh, erf, neg, gelu_tanh, sin, cos, log1p, softplus}}
      %c = thread.unary tan %a : f16
      thread.yield %c : f16
    }
    block.store %y, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @unknown_binary_kind(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m, %r = block.for_loop 1 iterations accumulate (sum, max) : tensor<8x64xf16>, tensor<8x1xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %s = block.reduce_max %t dim 1 : tensor<8x64xf16>
      block.yield %t, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    %y = thread.graph (%m) : (tensor<8x64xf16>) -> tensor<8x64xf16> {
    ^bb0(%a: f16):
      // expected-error @+1 {{unknown binary op 'pow'; expected one of add, sub, mul, div, max, min}}
      %c = thread.binary pow %a, %a : f16
      thread.yield %c : f16
    }
    block.store %y, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @unary_kind_out_of_range(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m, %r = block.for_loop 1 iterations accumulate (sum, max) : tensor<8x64xf16>, tensor<8x1xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %s = block.reduce_max %t dim 1 : tensor<8x64xf16>
      block.yield %t, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    %y = thread.graph (%m) : (tensor<8x64xf16>) -> tensor<8x64xf16> {
    ^bb0(%a: f16):
      // expected-error @+1 {{Invalid attribute `kind` in property conversion: 12 : i32}}
      %c = "thread.unary"(%a) <{kind = 12 : i32}> : (f16) -> f16
      thread.yield %c : f16
    }
    block.store %y, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @binary_mixed_types(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m, %r = block.for_loop 1 iterations accumulate (sum, max) : tensor<8x64xf16>, tensor<8x1xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %s = block.reduce_max %t dim 1 : tensor<8x64xf16>
      block.yield %t, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    %y, %z = thread.graph (%m, %r) : (tensor<8x64xf16>, tensor<8x1xf16>) -> (tensor<8x64xf16>, tensor<8x64xf16>) {
    ^bb0(%a: f16, %b: f16):
      // expected-error @+1 {{'thread.binary' op requires the same type for all operands and results}}
      %c = "thread.binary"(%a, %b) <{kind = #thread<binary_kind add>}> : (f16, f16) -> f32
      thread.yield %a, %b : f16, f16
    }
    block.store %y, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @mul_scalar_result_type(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m, %r = block.for_loop 1 iterations accumulate (sum, max) : tensor<8x64xf16>, tensor<8x1xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %s = block.reduce_max %t dim 1 : tensor<8x64xf16>
      block.yield %t, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    %y = thread.graph (%m) : (tensor<8x64xf16>) -> tensor<8x64xf16> {
    ^bb0(%a: f16):
      // expected-error @+1 {{'thread.mul_scalar' op requires the same type for all operands and results}}
      %c = "thread.mul_scalar"(%a) <{scalar = 2.0 : f64}> : (f16) -> bf16
      thread.yield %a : f16
    }
    block.store %y, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @add_scalar_f32_constant(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m, %r = block.for_loop 1 iterations accumulate (sum, max) : tensor<8x64xf16>, tensor<8x1xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %s = block.reduce_max %t dim 1 : tensor<8x64xf16>
      block.yield %t, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    %y = thread.graph (%m) : (tensor<8x64xf16>) -> tensor<8x64xf16> {
    ^bb0(%a: f16):
      // expected-error @+1 {{'thread.add_scalar' op attribute 'scalar' failed to satisfy constraint: 64-bit float attribute}}
      %c = "thread.add_scalar"(%a) <{scalar = 2.0 : f32}> : (f16) -> f16
      thread.yield %c : f16
    }
    block.store %y, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @f64_element(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m, %r = block.for_loop 1 iterations accumulate (sum, max) : tensor<8x64xf16>, tensor<8x1xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %s = block.reduce_max %t dim 1 : tensor<8x64xf16>
      block.yield %t, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    %y = thread.graph (%m) : (tensor<8x64xf16>) -> tensor<8x64xf16> {
    ^bb0(%a: f64):
      // expected-error @+1 {{'thread.unary' op operand #0 must be 16-bit float or bfloat16 type or 32-bit float, but got 'f64'}}
      %c = thread.unary exp %a : f64
      thread.yield %c : f64
    }
    block.store %y, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @integer_scalar_literal(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m, %r = block.for_loop 1 iterations accumulate (sum, max) : tensor<8x64xf16>, tensor<8x1xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %s = block.reduce_max %t dim 1 : tensor<8x64xf16>
      block.yield %t, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    %y = thread.graph (%m) : (tensor<8x64xf16>) -> tensor<8x64xf16> {
    ^bb0(%a: f16):
      // expected-error @+2 {{unexpected decimal integer literal for a floating point value}}
      // expected-note @+1 {{add a trailing dot to make the literal a float}}
      %c = thread.mul_scalar %a, 2 : f16
      thread.yield %c : f16
    }
    block.store %y, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @thread_convert_same_type(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    %y = thread.graph (%m) : (tensor<8x64xf16>) -> tensor<8x64xf16> {
    ^bb0(%a: f16):
      // expected-error @+1 {{'thread.convert' op converts 'f16' to itself; a conversion changes the element type}}
      %c = thread.convert %a : f16 to f16
      thread.yield %c : f16
    }
    block.store %y, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @thread_where_of_float(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    %y = thread.graph (%m) : (tensor<8x64xf16>) -> tensor<8x64xf16> {
    ^bb0(%a: f16):
      // expected-error @+1 {{'thread.where' op operand #0 must be 1-bit signless integer, but got 'f16'}}
      %c = "thread.where"(%a) <{on_true = 0.0 : f64, on_false = 1.0 : f64}> : (f16) -> f16
      thread.yield %c : f16
    }
    block.store %y, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}
