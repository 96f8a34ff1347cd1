// RUN: mlsopt-opt %s -split-input-file -verify-diagnostics

// Input iterators (block.load).

func.func @grid_tiles_too_small(%x: tensor<8x100xf16>) -> tensor<8x100xf16> {
  %o = kernel.custom (%x) grid <3, 1, 1> block <128, 1, 1> : (tensor<8x100xf16>) -> tensor<8x100xf16> {
  ^bb0(%in0: tensor<8x100xf16>, %out0: tensor<8x100xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x33xf16> {
      // expected-error @+1 {{'block.load' op tile shape 8x33 does not match the 8x34 that the imap, the fmap, the grid and the for-loop cut from the input of shape 8x100; along a dim the grid or the loop alone splits, a larger tile must leave every block and every iteration an element}}
      %t = block.load %in0 imap <x = 1> : tensor<8x100xf16> -> tensor<8x33xf16>
      block.yield %t : tensor<8x33xf16>
    }
    block.store %m, %out0 omap <x = 1> : tensor<8x33xf16> into tensor<8x100xf16>
    block.return
  }
  return %o : tensor<8x100xf16>
}

// -----

// Ragged tiles of 50 would leave the third block nothing to load.
func.func @grid_tiles_leave_a_block_empty(%x: tensor<8x100xf16>) -> tensor<8x100xf16> {
  %o = kernel.custom (%x) grid <3, 1, 1> block <128, 1, 1> : (tensor<8x100xf16>) -> tensor<8x100xf16> {
  ^bb0(%in0: tensor<8x100xf16>, %out0: tensor<8x100xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x50xf16> {
      // expected-error @+1 {{'block.load' op tile shape 8x50 does not match the 8x34}}
      %t = block.load %in0 imap <x = 1> : tensor<8x100xf16> -> tensor<8x50xf16>
      block.yield %t : tensor<8x50xf16>
    }
    block.store %m, %out0 omap <x = 1> : tensor<8x50xf16> into tensor<8x100xf16>
    block.return
  }
  return %o : tensor<8x100xf16>
}

// -----

// 5 elements on 4 blocks: tiles of 1 leave one out, tiles of 2 leave the
// last block none.
func.func @grid_cannot_split(%x: tensor<8x5xf16>) -> tensor<8x5xf16> {
  %o = kernel.custom (%x) grid <4, 1, 1> block <128, 1, 1> : (tensor<8x5xf16>) -> tensor<8x5xf16> {
  ^bb0(%in0: tensor<8x5xf16>, %out0: tensor<8x5xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x2xf16> {
      // expected-error @+1 {{'block.load' op grid dim x (size 4) splits dim 1 of size 5 into 4 tiles, which leaves a block no element}}
      %t = block.load %in0 imap <x = 1> : tensor<8x5xf16> -> tensor<8x2xf16>
      block.yield %t : tensor<8x2xf16>
    }
    block.store %m, %out0 omap <x = 1> : tensor<8x2xf16> into tensor<8x5xf16>
    block.return
  }
  return %o : tensor<8x5xf16>
}

// -----

func.func @loop_leaves_an_iteration_empty(%x: tensor<8x5xf16>) -> tensor<8x1xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x5xf16>) -> tensor<8x1xf16> {
  ^bb0(%in0: tensor<8x5xf16>, %out0: tensor<8x1xf16>):
    %m = block.for_loop 4 iterations accumulate (sum) : tensor<8x1xf16> {
      // expected-error @+1 {{'block.load' op the for-loop (4 iterations) splits dim 1 of size 5 into 4 tiles, which leaves an iteration no element}}
      %t = block.load %in0 imap <> fmap 1 : tensor<8x5xf16> -> tensor<8x2xf16>
      %s = block.reduce_sum %t dim 1 : tensor<8x2xf16>
      block.yield %s : tensor<8x1xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x1xf16> into tensor<8x1xf16>
    block.return
  }
  return %o : tensor<8x1xf16>
}

// -----

func.func @ragged_loop_tile_too_small(%x: tensor<8x100xf16>) -> tensor<8x1xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x100xf16>) -> tensor<8x1xf16> {
  ^bb0(%in0: tensor<8x100xf16>, %out0: tensor<8x1xf16>):
    %m = block.for_loop 3 iterations accumulate (sum) : tensor<8x1xf16> {
      // expected-error @+1 {{'block.load' op tile shape 8x33 does not match the 8x34 that the imap, the fmap, the grid and the for-loop cut from the input of shape 8x100}}
      %t = block.load %in0 imap <> fmap 1 : tensor<8x100xf16> -> tensor<8x33xf16>
      %s = block.reduce_sum %t dim 1 : tensor<8x33xf16>
      block.yield %s : tensor<8x1xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x1xf16> into tensor<8x1xf16>
    block.return
  }
  return %o : tensor<8x1xf16>
}

// -----

func.func @imap_dim_out_of_range(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 2, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      // expected-error @+1 {{'block.load' op grid dim y (size 2) maps to dim 2, which is out of range for a tensor of rank 2}}
      %t = block.load %in0 imap <y = 2> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    block.store %m, %out0 omap <y = 0> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @fmap_out_of_range(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 2 iterations accumulate (sum) : tensor<8x64xf16> {
      // expected-error @+1 {{'block.load' op the for-loop (2 iterations) maps to dim 2, which is out of range for a tensor of rank 2}}
      %t = block.load %in0 imap <> fmap 2 : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @fmap_negative(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 2 iterations accumulate (sum) : tensor<8x64xf16> {
      // expected-error @+1 {{'block.load' op the for-loop (2 iterations) maps to dim -1, which is out of range for a tensor of rank 2}}
      %t = block.load %in0 imap <> fmap -1 : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @chunked_dim_split_raggedly(%x: tensor<8x66xf16>) -> tensor<8x66xf16> {
  %o = kernel.custom (%x) grid <4, 1, 1> block <128, 1, 1> : (tensor<8x66xf16>) -> tensor<8x66xf16> {
  ^bb0(%in0: tensor<8x66xf16>, %out0: tensor<8x66xf16>):
    %m = block.for_loop 2 iterations accumulate (sum) : tensor<8x9xf16> {
      // expected-error @+1 {{'block.load' op the for-loop (2 iterations) splits dim 1, which grid dim x (size 4) splits raggedly (66 elements); a dim both split must be divided exactly by the grid}}
      %t = block.load %in0 imap <x = 1> fmap 1 : tensor<8x66xf16> -> tensor<8x9xf16>
      block.yield %t : tensor<8x9xf16>
    }
    block.store %m, %out0 omap <x = 1> : tensor<8x9xf16> into tensor<8x66xf16>
    block.return
  }
  return %o : tensor<8x66xf16>
}

// -----

func.func @chunk_not_divided(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <2, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 3 iterations accumulate (sum) : tensor<8x32xf16> {
      // expected-error @+1 {{'block.load' op the for-loop (3 iterations) splits each block's chunk of dim 1 of size 32 into 3 parts, which does not divide it}}
      %t = block.load %in0 imap <x = 1> fmap 1 : tensor<8x64xf16> -> tensor<8x32xf16>
      block.yield %t : tensor<8x32xf16>
    }
    block.store %m, %out0 omap <x = 1> : tensor<8x32xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @chunked_tile_too_large(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <2, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 2 iterations accumulate (sum) : tensor<8x32xf16> {
      // expected-error @+1 {{'block.load' op tile shape 8x32 does not match the 8x16 that the imap, the fmap, the grid and the for-loop cut from the input of shape 8x64}}
      %t = block.load %in0 imap <x = 1> fmap 1 : tensor<8x64xf16> -> tensor<8x32xf16>
      block.yield %t : tensor<8x32xf16>
    }
    block.store %m, %out0 omap <x = 1> : tensor<8x32xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @wrong_tile_shape(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <2, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 2 iterations accumulate (sum) : tensor<8x64xf16> {
      // expected-error @+1 {{'block.load' op tile shape 8x64 does not match the 4x32 that the imap, the fmap, the grid and the for-loop cut from the input of shape 8x64}}
      %t = block.load %in0 imap <x = 0> fmap 1 : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    block.store %m, %out0 omap <x = 0> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @window_rank(%x: tensor<8x64xf16>) -> tensor<8x32xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x32xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x32xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x32xf16> {
      // expected-error @+1 {{'block.load' op window of 1 offsets and 2 sizes for an input of rank 2}}
      %t = block.load %in0 window [32] [8, 32] imap <> : tensor<8x64xf16> -> tensor<8x32xf16>
      block.yield %t : tensor<8x32xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x32xf16> into tensor<8x32xf16>
    block.return
  }
  return %o : tensor<8x32xf16>
}

// -----

func.func @window_outside_input(%x: tensor<8x64xf16>) -> tensor<8x32xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x32xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x32xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x32xf16> {
      // expected-error @+1 {{'block.load' op window [40, 72) of dim 1 is not inside the input of shape 8x64}}
      %t = block.load %in0 window [0, 40] [8, 32] imap <> : tensor<8x64xf16> -> tensor<8x32xf16>
      block.yield %t : tensor<8x32xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x32xf16> into tensor<8x32xf16>
    block.return
  }
  return %o : tensor<8x32xf16>
}

// -----

// An offset near 2^63: offset + size overflowed, and the window passed.
func.func @window_offset_overflows(%x: tensor<8x64xf32>) -> tensor<8x32xf32> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf32>) -> tensor<8x32xf32> {
  ^bb0(%in0: tensor<8x64xf32>, %out0: tensor<8x32xf32>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x32xf32> {
      // expected-error @+1 {{'block.load' op window [9223372036854775800, 9223372036854775807) of dim 1 is not inside the input of shape 8x64}}
      %t = block.load %in0 window [0, 9223372036854775800] [8, 32] imap <> : tensor<8x64xf32> -> tensor<8x32xf32>
      block.yield %t : tensor<8x32xf32>
    }
    block.store %m, %out0 omap <> : tensor<8x32xf32> into tensor<8x32xf32>
    block.return
  }
  return %o : tensor<8x32xf32>
}

// -----

func.func @window_tile_shape(%x: tensor<8x64xf16>) -> tensor<8x32xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x32xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x32xf16>):
    %m = block.for_loop 2 iterations accumulate (sum) : tensor<8x32xf16> {
      // expected-error @+1 {{'block.load' op tile shape 8x32 does not match the 8x16 that the imap, the fmap, the grid and the for-loop cut from the window of shape 8x32}}
      %t = block.load %in0 window [0, 32] [8, 32] imap <> fmap 1 : tensor<8x64xf16> -> tensor<8x32xf16>
      block.yield %t : tensor<8x32xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x32xf16> into tensor<8x32xf16>
    block.return
  }
  return %o : tensor<8x32xf16>
}

// -----

func.func @load_from_output(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      // expected-error @+1 {{'block.load' op must load from an input of the enclosing kernel.custom (one of its region arguments}}
      %t = block.load %out0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @load_from_tile(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      // expected-error @+1 {{'block.load' op must load from an input of the enclosing kernel.custom}}
      %u = block.load %t imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %u : tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @load_outside_custom(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  // expected-error @+1 {{'block.load' op expects parent op to be one of 'block.for_loop, kernel.custom'}}
  %t = block.load %x imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
  return %t : tensor<8x64xf16>
}

// -----

func.func @load_before_loop(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    // expected-error @+1 {{'block.load' op outside the for-loop must come after it: it loads a tile for the ops after the loop}}
    %u = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    %s = block.add %m, %u : tensor<8x64xf16>, tensor<8x64xf16>
    block.store %s, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @fmap_after_loop(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 2 iterations accumulate (sum) : tensor<8x32xf16> {
      %t = block.load %in0 imap <> fmap 1 : tensor<8x64xf16> -> tensor<8x32xf16>
      block.yield %t : tensor<8x32xf16>
    }
    // expected-error @+1 {{'block.load' op after the for-loop cannot have an fmap: only a load inside the loop reads a tile per iteration}}
    %u = block.load %in0 imap <> fmap 1 : tensor<8x64xf16> -> tensor<8x64xf16>
    block.store %u, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @fmap_not_an_integer(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      // expected-error @+1 {{'block.load' op attribute 'fmap' failed to satisfy constraint: 64-bit signless integer attribute}}
      %t = "block.load"(%in0) <{imap = #block.dim_map<>, fmap = 1 : i32}> : (tensor<8x64xf16>) -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

// Output savers (block.store).

func.func @store_replicated_grid_dim(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 2, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    // expected-error @+1 {{'block.store' op grid dim y has 2 blocks but the omap does not map it to an output dim; blocks would overwrite each other's results}}
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @store_replicated_grid_dim_z(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <2, 1, 4> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<4x64xf16> {
      %t = block.load %in0 imap <x = 0> : tensor<8x64xf16> -> tensor<4x64xf16>
      block.yield %t : tensor<4x64xf16>
    }
    // expected-error @+1 {{'block.store' op grid dim z has 4 blocks but the omap does not map it to an output dim}}
    block.store %m, %out0 omap <x = 0> : tensor<4x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @store_partial_cover(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 2 iterations accumulate (sum) : tensor<8x32xf16> {
      %t = block.load %in0 imap <> fmap 1 : tensor<8x64xf16> -> tensor<8x32xf16>
      block.yield %t : tensor<8x32xf16>
    }
    // expected-error @+1 {{'block.store' op tiles of shape 8x32 on the grid cover 32 elements of output dim 1, which has 64; the tiles must cover the output exactly once, each block's with at least one element}}
    block.store %m, %out0 omap <> : tensor<8x32xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @store_overfull_cover(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <2, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    // expected-error @+1 {{'block.store' op tiles of shape 8x64 on the grid cover 16 elements of output dim 0, which has 8; the tiles must cover the output exactly once, each block's with at least one element}}
    block.store %m, %out0 omap <x = 0> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @store_rank_mismatch(%x: tensor<2x8x64xf16>) -> tensor<16x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<2x8x64xf16>) -> tensor<16x64xf16> {
  ^bb0(%in0: tensor<2x8x64xf16>, %out0: tensor<16x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<2x8x64xf16> {
      %t = block.load %in0 imap <> : tensor<2x8x64xf16> -> tensor<2x8x64xf16>
      block.yield %t : tensor<2x8x64xf16>
    }
    // expected-error @+1 {{'block.store' op tile of rank 3 cannot be saved to an output of rank 2}}
    block.store %m, %out0 omap <> : tensor<2x8x64xf16> into tensor<16x64xf16>
    block.return
  }
  return %o : tensor<16x64xf16>
}

// -----

func.func @omap_dim_out_of_range(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 2> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    // expected-error @+1 {{'block.store' op omap maps grid dim z to dim 2, which is out of range for an output of rank 2}}
    block.store %m, %out0 omap <z = 2> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @store_into_input(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    // expected-error @+1 {{'block.store' op must store into an output of the enclosing kernel.custom (one of its region arguments}}
    block.store %m, %in0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @store_inside_loop(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      // expected-error @+1 {{'block.store' op expects parent op 'kernel.custom'}}
      block.store %t, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @output_stored_twice(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  // expected-error @+1 {{'kernel.custom' op output #0 is stored 2 times; each output must be stored exactly once}}
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @output_never_stored(%x: tensor<8x64xf16>) -> (tensor<8x64xf16>, tensor<8x64xf16>) {
  // expected-error @+1 {{'kernel.custom' op output #1 is stored 0 times; each output must be stored exactly once}}
  %o:2 = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<8x64xf16>) -> (tensor<8x64xf16>, tensor<8x64xf16>) {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>, %out1: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o#0, %o#1 : tensor<8x64xf16>, tensor<8x64xf16>
}

// -----

func.func @output_read(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    // expected-error @+1 {{'block.exp' op uses kernel output #0 as a value; outputs are only written, by block.store}}
    %e = block.exp %out0 : tensor<8x64xf16>
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @output_stored_as_tile(%x: tensor<8x64xf16>) -> (tensor<8x64xf16>, tensor<8x64xf16>) {
  %o:2 = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<8x64xf16>) -> (tensor<8x64xf16>, tensor<8x64xf16>) {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>, %out1: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    // expected-error @+1 {{'block.store' op uses kernel output #0 as a value; outputs are only written, by block.store}}
    block.store %out0, %out1 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o#0, %o#1 : tensor<8x64xf16>, tensor<8x64xf16>
}

// -----

// Whole-graph rules.

func.func @input_used_by_compute_op(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      // expected-error @+1 {{'block.exp' op uses kernel input #0 directly; block graphs read inputs only through block.load}}
      %t = block.exp %in0 : tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @input_stored_directly(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    // expected-error @+1 {{'block.store' op uses kernel input #0 directly; block graphs read inputs only through block.load}}
    block.store %in0, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @no_for_loop(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  // expected-error @+1 {{'kernel.custom' op block graph needs a block.for_loop: its accumulators carry what the loop computes to the outputs (use 1 iteration for no loop)}}
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @two_for_loops(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    // expected-error @+1 {{'block.for_loop' op is the second for-loop of this block graph; a path from an input to an output must pass exactly one accumulator, so a block graph has one for-loop}}
    %n = block.for_loop 1 iterations accumulate (max) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    %a = block.add %m, %n : tensor<8x64xf16>, tensor<8x64xf16>
    block.store %a, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @kernel_op_in_block_graph(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    // expected-error @+1 {{'kernel.exp' op cannot appear in a block graph; a custom kernel's body holds only block ops and thread graphs}}
    %e = kernel.exp %m : tensor<8x64xf16>
    block.store %e, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @kernel_op_in_for_loop(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      // expected-error @+1 {{'kernel.exp' op cannot appear in a block graph; a custom kernel's body holds only block ops and thread graphs}}
      %e = kernel.exp %t : tensor<8x64xf16>
      block.yield %e : tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @arith_op_in_for_loop(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      // expected-error @+1 {{'arith.constant' op cannot appear in a block graph}}
      %c = arith.constant 1.0 : f16
      block.yield %t : tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

// Tiles of 227x257xf16 (116678 bytes): the load, exp (which is the loop's
// result) and sigmoid. Tiles share bytes only when not live together, and
// exp is live with each of the others: 116688 (its offset, the load's
// bytes aligned to 16) + 116678 = 233366 bytes, rounded up to 16 (the
// lowering's 16-byte accesses read the last tile's padding): 233376.

func.func @shared_memory_over_sm90(%x: tensor<227x257xf16>) -> tensor<227x257xf16> {
  // expected-error @+1 {{'kernel.custom' op block graph needs 233376 bytes of shared memory, more than the 232448 bytes a block has on sm_90; use smaller tiles (more blocks or more for-loop iterations)}}
  %o = kernel.custom (%x) grid <1, 1, 1> block <1024, 1, 1>
      : (tensor<227x257xf16>) -> tensor<227x257xf16> {
  ^bb0(%in0: tensor<227x257xf16>, %out0: tensor<227x257xf16>):
    %a = block.for_loop 1 iterations accumulate (sum) : tensor<227x257xf16> {
      %t = block.load %in0 imap <> : tensor<227x257xf16> -> tensor<227x257xf16>
      %e = block.exp %t : tensor<227x257xf16>
      block.yield %e : tensor<227x257xf16>
    }
    %s = block.sigmoid %a : tensor<227x257xf16>
    block.store %s, %out0 omap <> : tensor<227x257xf16> into tensor<227x257xf16>
    block.return
  }
  return %o : tensor<227x257xf16>
}

// -----

// A graph that fits on sm_90 but not on sm_86: two tiles of 100x256xf16 live
// at a time, 2 x 51200 = 102400 bytes.

module attributes {mlsopt.target = "sm_86"} {
  func.func @shared_memory_over_sm86(%x: tensor<100x256xf16>) -> tensor<100x256xf16> {
    // expected-error @+1 {{'kernel.custom' op block graph needs 102400 bytes of shared memory, more than the 101376 bytes a block has on sm_86}}
    %o = kernel.custom (%x) grid <1, 1, 1> block <1024, 1, 1>
        : (tensor<100x256xf16>) -> tensor<100x256xf16> {
    ^bb0(%in0: tensor<100x256xf16>, %out0: tensor<100x256xf16>):
      %a = block.for_loop 1 iterations accumulate (sum) : tensor<100x256xf16> {
        %t = block.load %in0 imap <> : tensor<100x256xf16> -> tensor<100x256xf16>
        %e = block.exp %t : tensor<100x256xf16>
        block.yield %e : tensor<100x256xf16>
      }
      %s = block.sigmoid %a : tensor<100x256xf16>
      block.store %s, %out0 omap <> : tensor<100x256xf16> into tensor<100x256xf16>
      block.return
    }
    return %o : tensor<100x256xf16>
  }
}

// -----

// An unknown target name is rejected where it is set, before the kernels
// inside are checked against it.

// expected-error @+1 {{mlsopt.target must be one of sm_80, sm_86, sm_89, sm_90, got "sm_75"}}
module attributes {mlsopt.target = "sm_75"} {
  func.func @unknown_target(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
    %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1>
        : (tensor<8x64xf16>) -> tensor<8x64xf16> {
    ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
      %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
        %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
        block.yield %t : tensor<8x64xf16>
      }
      block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
      block.return
    }
    return %o : tensor<8x64xf16>
  }
}

// -----

// For-loops and accumulators.

func.func @zero_iterations(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    // expected-error @+1 {{'block.for_loop' op attribute 'iterations' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
    %m = block.for_loop 0 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @negative_iterations(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    // expected-error @+1 {{'block.for_loop' op attribute 'iterations' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
    %m = block.for_loop -4 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @fewer_accumulators_than_results(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    // expected-error @+1 {{'block.for_loop' op has 1 accumulators but 2 results; give one accumulator per result}}
    %m, %n = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16>, tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t, %t : tensor<8x64xf16>, tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @more_accumulators_than_results(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    // expected-error @+1 {{'block.for_loop' op has 2 accumulators but 1 results; give one accumulator per result}}
    %m = block.for_loop 1 iterations accumulate (sum, max) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @no_accumulators(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    // expected-error @+1 {{'block.for_loop' op must accumulate at least one value; a loop without accumulators computes nothing}}
    "block.for_loop"() <{accumulators = [], iterations = 1 : i64}> ({
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      "block.yield"() : () -> ()
    }) : () -> ()
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @body_without_yield(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    // expected-error @+1 {{'block.for_loop' op body must end in block.yield}}
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @empty_body(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    // expected-error @+1 {{'block.for_loop' op expects a non-empty block}}
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @yield_type_mismatch(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %s = block.reduce_sum %t dim 1 : tensor<8x64xf16>
      // expected-error @+1 {{'block.yield' op yields values of types ('tensor<8x1xf16>') but the for-loop's accumulators have types ('tensor<8x64xf16>')}}
      block.yield %s : tensor<8x1xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @yield_count_mismatch(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      // expected-error @+1 {{'block.yield' op yields values of types ('tensor<8x64xf16>', 'tensor<8x64xf16>') but the for-loop's accumulators have types ('tensor<8x64xf16>')}}
      block.yield %t, %t : tensor<8x64xf16>, tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @rescale_by_sum(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    // expected-error @+1 {{'block.for_loop' op accumulator #0 rescales by accumulator #1, which must be a max accumulator of this loop}}
    %m, %s = block.for_loop 1 iterations accumulate (rescale by 1, sum) : tensor<8x64xf16>, tensor<8x1xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %r = block.reduce_max %t dim 1 : tensor<8x64xf16>
      block.yield %t, %r : tensor<8x64xf16>, tensor<8x1xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @rescale_by_rescale(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    // expected-error @+1 {{'block.for_loop' op accumulator #0 rescales by accumulator #0, which must be a max accumulator of this loop}}
    %m = block.for_loop 1 iterations accumulate (rescale by 0) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @rescale_index_out_of_range(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    // expected-error @+1 {{'block.for_loop' op accumulator #1 rescales by accumulator #2, which must be a max accumulator of this loop}}
    %r, %m = block.for_loop 1 iterations accumulate (max, rescale by 2) : tensor<8x1xf16>, tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %mx = block.reduce_max %t dim 1 : tensor<8x64xf16>
      block.yield %mx, %t : tensor<8x1xf16>, tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @rescale_shape_mismatch(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    // expected-error @+1 {{'block.for_loop' op accumulator #0 of shape 8x64 cannot be rescaled by max accumulator #1 of shape 8x2; the max must broadcast to the rescaled value}}
    %m, %r = block.for_loop 1 iterations accumulate (rescale by 1, max) : tensor<8x64xf16>, tensor<8x2xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %mx = block.reduce_max %t dim 1 : tensor<8x64xf16>
      %c = block.concat %mx, %mx dim 1 : tensor<8x1xf16>, tensor<8x1xf16>
      block.yield %t, %c : tensor<8x64xf16>, tensor<8x2xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @rescale_max_larger_than_value(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    // expected-error @+1 {{'block.for_loop' op accumulator #1 of shape 8x1 cannot be rescaled by max accumulator #0 of shape 8x64}}
    %r, %s = block.for_loop 1 iterations accumulate (max, rescale by 0) : tensor<8x64xf16>, tensor<8x1xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %mx = block.reduce_sum %t dim 1 : tensor<8x64xf16>
      block.yield %t, %mx : tensor<8x64xf16>, tensor<8x1xf16>
    }
    block.store %r, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @integer_accumulator(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    // expected-error @+1 {{'block.for_loop' op result #1 must be variadic of statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float values, but got 'tensor<8x64xi32>'}}
    %m, %bad = block.for_loop 1 iterations accumulate (sum, sum) : tensor<8x64xf16>, tensor<8x64xi32> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t, %t : tensor<8x64xf16>, tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @accumulators_not_accumulators(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    // expected-error @+1 {{'block.for_loop' op attribute 'accumulators' failed to satisfy constraint: accumulator array}}
    %m = "block.for_loop"() <{accumulators = [1 : i64], iterations = 1 : i64}> ({
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }) : () -> tensor<8x64xf16>
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @unknown_accumulator(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    // expected-error @+1 {{unknown accumulator 'avg'; expected sum, max, mean, rms or rescale}}
    %m = block.for_loop 1 iterations accumulate (avg) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @rescale_without_index(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    // expected-error @+1 {{a rescale accumulator needs `by <index>` naming the max accumulator it rescales by}}
    %m = block.for_loop 1 iterations accumulate (rescale) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @index_on_sum(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    // expected-error @+1 {{only rescale accumulators take `by <index>`}}
    %m = block.for_loop 1 iterations accumulate (sum by 0) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @negative_index(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    // expected-error @+1 {{accumulator index must be non-negative, got -1}}
    %m = block.for_loop 1 iterations accumulate (rescale by -1) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

// The accumulator attribute on its own.

// expected-error @+2 {{expected ::mlsopt::block::AccumKind to be one of: sum, max, mean, rms, rescale}}
// expected-error @+1 {{failed to parse Block_AccumulatorAttr parameter 'kind' which is to be a `::mlsopt::block::AccumKind`}}
func.func @accumulator_attr_unknown_kind() attributes {acc = #block.accumulator<min>} {
  return
}

// -----

// expected-error @+1 {{a rescale accumulator needs `by <index>` naming the max accumulator it rescales by}}
func.func @accumulator_attr_rescale_without_index() attributes {acc = #block.accumulator<rescale>} {
  return
}

// -----

// expected-error @+1 {{only rescale accumulators take `by <index>`}}
func.func @accumulator_attr_index_on_max() attributes {acc = #block.accumulator<max by 1>} {
  return
}

// -----

// expected-error @+1 {{accumulator index must be non-negative, got -3}}
func.func @accumulator_attr_negative_index() attributes {acc = #block.accumulator<rescale by -3>} {
  return
}

// -----

// Dim maps (imap, omap).

func.func @grid_dim_mapped_twice(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      // expected-error @+1 {{grid dim x is mapped twice}}
      %t = block.load %in0 imap <x = 0, x = 1> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @unknown_grid_dim(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      // expected-error @+1 {{expected grid dim x, y or z, got 'w'}}
      %t = block.load %in0 imap <w = 0> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @negative_tensor_dim(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      // expected-error @+1 {{tensor dim must be non-negative, got -1}}
      %t = block.load %in0 imap <y = -1> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @tensor_dim_split_twice(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      // expected-error @+1 {{grid dims x and z both split tensor dim 1; map each tensor dim at most once}}
      %t = block.load %in0 imap <x = 1, z = 1> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @omap_grid_dim_mapped_twice(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    // expected-error @+1 {{grid dim y is mapped twice}}
    block.store %m, %out0 omap <y = 0, y = 1> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @omap_tensor_dim_split_twice(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    // expected-error @+1 {{grid dims x and y both split tensor dim 0; map each tensor dim at most once}}
    block.store %m, %out0 omap <x = 0, y = 0> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

// expected-error @+1 {{grid dims y and z both split tensor dim 2; map each tensor dim at most once}}
func.func @dim_map_attr() attributes {map = #block.dim_map<y = 2, z = 2>} {
  return
}

// -----

// Structure and compute ops.

func.func @yield_outside_loop(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    // expected-error @+1 {{'block.yield' op expects parent op 'block.for_loop'}}
    block.yield %m : tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @return_inside_loop(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      // expected-error @+1 {{'block.return' op expects parent op 'kernel.custom'}}
      block.return
      block.yield %t : tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @for_loop_outside_custom(%x: tensor<8x64xf16>) {
  // expected-error @+1 {{'block.for_loop' op expects parent op 'kernel.custom'}}
  %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
    %t = block.exp %x : tensor<8x64xf16>
    block.yield %t : tensor<8x64xf16>
  }
  return
}

// -----

func.func @block_matmul_contraction(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    // expected-error @+1 {{matmul contraction dims differ: 8x64 x 8x64 needs the last dim of the left operand (64) to equal the second-to-last dim of the right operand (8)}}
    %p = block.matmul %m, %m : tensor<8x64xf16>, tensor<8x64xf16>
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @block_broadcast(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %r = block.reduce_sum %t dim 0 : tensor<8x64xf16>
      %c = block.concat %r, %r dim 1 : tensor<1x64xf16>, tensor<1x64xf16>
      // expected-error @+1 {{shapes 8x64 and 1x128 do not broadcast: dim 1 has sizes 64 and 128}}
      %a = block.add %t, %c : tensor<8x64xf16>, tensor<1x128xf16>
      block.yield %a : tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @block_reduce_dim(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    // expected-error @+1 {{reduction dim 2 is out of range for rank 2}}
    %r = block.reduce_max %m dim 2 : tensor<8x64xf16>
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @block_concat_dim(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    %h = block.reduce_sum %m dim 0 : tensor<8x64xf16>
    // expected-error @+1 {{concat operands must agree on every dim but 1, got shapes 8x64 and 1x64}}
    %c = block.concat %m, %h dim 1 : tensor<8x64xf16>, tensor<1x64xf16>
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @block_wrong_result_type(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      block.yield %t : tensor<8x64xf16>
    }
    // expected-error @+2 {{'block.rms_norm' op inferred type(s) 'tensor<8x64xf16>' are incompatible with return type(s) of operation 'tensor<8x64xbf16>'}}
    // expected-error @+1 {{'block.rms_norm' op failed to infer returned types}}
    %n = "block.rms_norm"(%m) <{epsilon = 0.0 : f64}> : (tensor<8x64xf16>) -> tensor<8x64xbf16>
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

func.func @block_rms_norm_dim_out_of_range(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf16> {
      %t = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      // expected-error @+1 {{normalized dim 2 is out of range for rank 2}}
      %n = block.rms_norm %t dim 2 : tensor<8x64xf16>
      block.yield %n : tensor<8x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}

// -----

// Tiles whose byte count overflows 64 bits saturate instead of wrapping.
func.func @smem_overflow(%x: tensor<4294967296x4294967296xf16>) -> tensor<4294967296x4294967296xf16> {
  // expected-error @+1 {{'kernel.custom' op block graph needs 9223372036854775807 bytes of shared memory, more than the 232448 bytes a block has on sm_90}}
  %o = kernel.custom (%x) grid <1, 1, 1> block <32, 1, 1> : (tensor<4294967296x4294967296xf16>) -> tensor<4294967296x4294967296xf16> {
  ^bb0(%in0: tensor<4294967296x4294967296xf16>, %out0: tensor<4294967296x4294967296xf16>):
    %a = block.for_loop 1 iterations accumulate (sum) : tensor<4294967296x4294967296xf16> {
      %t = block.load %in0 imap <> : tensor<4294967296x4294967296xf16> -> tensor<4294967296x4294967296xf16>
      block.yield %t : tensor<4294967296x4294967296xf16>
    }
    block.store %a, %out0 omap <> : tensor<4294967296x4294967296xf16> into tensor<4294967296x4294967296xf16>
    block.return
  }
  return %o : tensor<4294967296x4294967296xf16>
}

// -----

// block.transpose shares kernel.transpose's shape rule.
func.func @block_transpose_not_a_permutation(%w: tensor<64x32xf16>) -> tensor<32x64xf16> {
  %o = kernel.custom (%w) grid <1, 1, 1> block <128, 1, 1> : (tensor<64x32xf16>) -> tensor<32x64xf16> {
  ^bb0(%in0: tensor<64x32xf16>, %out0: tensor<32x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<32x64xf16> {
      %t = block.load %in0 imap <> : tensor<64x32xf16> -> tensor<64x32xf16>
      // expected-error @+1 {{[0, 0] is not a permutation of the dims 0..1}}
      %p = block.transpose %t [0, 0] : tensor<64x32xf16>
      block.yield %p : tensor<32x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<32x64xf16> into tensor<32x64xf16>
    block.return
  }
  return %o : tensor<32x64xf16>
}

// -----

func.func @block_transpose_wrong_length(%w: tensor<64x32xf16>) -> tensor<32x64xf16> {
  %o = kernel.custom (%w) grid <1, 1, 1> block <128, 1, 1> : (tensor<64x32xf16>) -> tensor<32x64xf16> {
  ^bb0(%in0: tensor<64x32xf16>, %out0: tensor<32x64xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<32x64xf16> {
      %t = block.load %in0 imap <> : tensor<64x32xf16> -> tensor<64x32xf16>
      // expected-error @+1 {{permutation has 3 entries but the operand has rank 2}}
      %p = block.transpose %t [2, 1, 0] : tensor<64x32xf16>
      block.yield %p : tensor<32x64xf16>
    }
    block.store %m, %out0 omap <> : tensor<32x64xf16> into tensor<32x64xf16>
    block.return
  }
  return %o : tensor<32x64xf16>
}

// -----

// Masks (block.triangle_fill).

func.func @triangle_fill_fmap_after_loop(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%in0: tensor<8x64xf32>, %out0: tensor<8x64xf32>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf32> {
      %t = block.load %in0 imap <> : tensor<8x64xf32> -> tensor<8x64xf32>
      block.yield %t : tensor<8x64xf32>
    }
    // expected-error @+1 {{'block.triangle_fill' op has an fmap outside the for-loop, where there is no iteration to place the tile by}}
    %f = block.triangle_fill %m dims [0, 1] diagonal 1 value 0.0 imap <> fmap 1 : tensor<8x64xf32>
    block.store %f, %out0 omap <> : tensor<8x64xf32> into tensor<8x64xf32>
    block.return
  }
  return %o : tensor<8x64xf32>
}

// -----

func.func @triangle_fill_imap_out_of_range(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %o = kernel.custom (%x) grid <2, 1, 1> block <128, 1, 1> : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%in0: tensor<8x64xf32>, %out0: tensor<8x64xf32>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<4x64xf32> {
      %t = block.load %in0 imap <x = 0> : tensor<8x64xf32> -> tensor<4x64xf32>
      // expected-error @+1 {{'block.triangle_fill' op imap places tile dim 2, which a tile of rank 2 does not have}}
      %f = block.triangle_fill %t dims [0, 1] diagonal 1 value 0.0 imap <x = 2> : tensor<4x64xf32>
      block.yield %f : tensor<4x64xf32>
    }
    block.store %m, %out0 omap <x = 0> : tensor<4x64xf32> into tensor<8x64xf32>
    block.return
  }
  return %o : tensor<8x64xf32>
}

// -----

func.func @triangle_fill_fmap_out_of_range(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%in0: tensor<8x64xf32>, %out0: tensor<8x64xf32>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf32> {
      %t = block.load %in0 imap <> : tensor<8x64xf32> -> tensor<8x64xf32>
      // expected-error @+1 {{'block.triangle_fill' op fmap places tile dim 3, which a tile of rank 2 does not have}}
      %f = block.triangle_fill %t dims [0, 1] diagonal 1 value 0.0 imap <> fmap 3 : tensor<8x64xf32>
      block.yield %f : tensor<8x64xf32>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf32> into tensor<8x64xf32>
    block.return
  }
  return %o : tensor<8x64xf32>
}

// -----

func.func @block_triangle_fill_same_dim(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%in0: tensor<8x64xf32>, %out0: tensor<8x64xf32>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf32> {
      %t = block.load %in0 imap <> : tensor<8x64xf32> -> tensor<8x64xf32>
      // expected-error @+1 {{'block.triangle_fill' op rows and cols are both dim 0}}
      %f = block.triangle_fill %t dims [0, 0] diagonal 1 value 0.0 imap <> : tensor<8x64xf32>
      block.yield %f : tensor<8x64xf32>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf32> into tensor<8x64xf32>
    block.return
  }
  return %o : tensor<8x64xf32>
}

// -----

func.func @triangle_fill_dim_placed_twice(%x: tensor<8x64xf32>) -> tensor<8x1xf32> {
  %o = kernel.custom (%x) grid <2, 1, 1> block <128, 1, 1> : (tensor<8x64xf32>) -> tensor<8x1xf32> {
  ^bb0(%in0: tensor<8x64xf32>, %out0: tensor<8x1xf32>):
    %m = block.for_loop 2 iterations accumulate (sum) : tensor<4x1xf32> {
      %t = block.load %in0 imap <x = 0> fmap 1 : tensor<8x64xf32> -> tensor<4x32xf32>
      // expected-error @+1 {{'block.triangle_fill' op places tile dim 1 by both the grid and the for-loop}}
      %f = block.triangle_fill %t dims [0, 1] diagonal 1 value 0.0 imap <x = 1> fmap 1 : tensor<4x32xf32>
      %r = block.reduce_sum %f dim 1 : tensor<4x32xf32>
      block.yield %r : tensor<4x1xf32>
    }
    block.store %m, %out0 omap <x = 0> : tensor<4x1xf32> into tensor<8x1xf32>
    block.return
  }
  return %o : tensor<8x1xf32>
}

// -----

// Only f16 and bf16 products widen, and only to f32.
func.func @block_matmul_narrows(%x: tensor<8x64xf32>, %w: tensor<64x32xf32>) -> tensor<8x32xf16> {
  %o = kernel.custom (%x, %w) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf16> {
  ^bb0(%in0: tensor<8x64xf32>, %in1: tensor<64x32xf32>, %out0: tensor<8x32xf16>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x32xf16> {
      %a = block.load %in0 imap <> : tensor<8x64xf32> -> tensor<8x64xf32>
      %b = block.load %in1 imap <> : tensor<64x32xf32> -> tensor<64x32xf32>
      // expected-error @+2 {{'block.matmul' op inferred type(s) 'tensor<8x32xf32>' are incompatible with return type(s) of operation 'tensor<8x32xf16>'}}
      // expected-error @+1 {{'block.matmul' op failed to infer returned types}}
      %p = block.matmul %a, %b : tensor<8x64xf32>, tensor<64x32xf32> -> tensor<8x32xf16>
      block.yield %p : tensor<8x32xf16>
    }
    block.store %m, %out0 omap <> : tensor<8x32xf16> into tensor<8x32xf16>
    block.return
  }
  return %o : tensor<8x32xf16>
}

// -----

// A widened product has the product's shape.
func.func @block_matmul_widened_shape(%x: tensor<8x64xbf16>, %w: tensor<64x32xbf16>) -> tensor<8x64xf32> {
  %o = kernel.custom (%x, %w) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xbf16>, tensor<64x32xbf16>) -> tensor<8x64xf32> {
  ^bb0(%in0: tensor<8x64xbf16>, %in1: tensor<64x32xbf16>, %out0: tensor<8x64xf32>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf32> {
      %a = block.load %in0 imap <> : tensor<8x64xbf16> -> tensor<8x64xbf16>
      %b = block.load %in1 imap <> : tensor<64x32xbf16> -> tensor<64x32xbf16>
      // expected-error @+2 {{'block.matmul' op inferred type(s) 'tensor<8x32xbf16>' are incompatible with return type(s) of operation 'tensor<8x64xf32>'}}
      // expected-error @+1 {{'block.matmul' op failed to infer returned types}}
      %p = block.matmul %a, %b : tensor<8x64xbf16>, tensor<64x32xbf16> -> tensor<8x64xf32>
      block.yield %p : tensor<8x64xf32>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf32> into tensor<8x64xf32>
    block.return
  }
  return %o : tensor<8x64xf32>
}

// -----

func.func @block_convert_shape(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%in0: tensor<8x64xf32>, %out0: tensor<8x64xf32>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf32> {
      %a = block.load %in0 imap <> : tensor<8x64xf32> -> tensor<8x64xf32>
      // expected-error @+1 {{'block.convert' op converts a tensor of shape 8x64 to one of shape 64x8; a conversion keeps the shape}}
      %h = block.convert %a : tensor<8x64xf32> to tensor<64x8xf16>
      block.yield %a : tensor<8x64xf32>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf32> into tensor<8x64xf32>
    block.return
  }
  return %o : tensor<8x64xf32>
}

// -----

func.func @block_convert_same_type(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%in0: tensor<8x64xf32>, %out0: tensor<8x64xf32>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf32> {
      %a = block.load %in0 imap <> : tensor<8x64xf32> -> tensor<8x64xf32>
      // expected-error @+1 {{'block.convert' op converts 'f32' to itself; a conversion changes the element type}}
      %h = block.convert %a : tensor<8x64xf32> to tensor<8x64xf32>
      block.yield %h : tensor<8x64xf32>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf32> into tensor<8x64xf32>
    block.return
  }
  return %o : tensor<8x64xf32>
}

// -----

func.func @load_mask_as_floats(%x: tensor<8x64xi1>) -> tensor<8x64xf32> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xi1>) -> tensor<8x64xf32> {
  ^bb0(%in0: tensor<8x64xi1>, %out0: tensor<8x64xf32>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf32> {
      // expected-error @+1 {{'block.load' op loads a tile of 'f32' from an input of 'i1'; a mask or integer input loads as stored, and block.where or block.int_to_float makes floats of it}}
      %a = block.load %in0 imap <> : tensor<8x64xi1> -> tensor<8x64xf32>
      block.yield %a : tensor<8x64xf32>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf32> into tensor<8x64xf32>
    block.return
  }
  return %o : tensor<8x64xf32>
}

// -----

func.func @block_where_shape(%x: tensor<8x64xi1>) -> tensor<8x64xf32> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xi1>) -> tensor<8x64xf32> {
  ^bb0(%in0: tensor<8x64xi1>, %out0: tensor<8x64xf32>):
    %m = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf32> {
      %a = block.load %in0 imap <> : tensor<8x64xi1> -> tensor<8x64xi1>
      // expected-error @+1 {{'block.where' op maps a mask of shape 8x64 to a result of shape 64x8; the shapes must be equal}}
      %w = block.where %a, 0.0, 1.0 : tensor<8x64xi1> to tensor<64x8xf32>
      %t = block.transpose %w [1, 0] : tensor<64x8xf32>
      block.yield %t : tensor<8x64xf32>
    }
    block.store %m, %out0 omap <> : tensor<8x64xf32> into tensor<8x64xf32>
    block.return
  }
  return %o : tensor<8x64xf32>
}
