//===- DummyFuzzerMain.cpp - Run a fuzz target without libFuzzer ----------===//
//
// Where the compiler has no libFuzzer (gcc), each fuzz target is linked with
// this main instead: it runs the target once on every file named on the
// command line, so the seed corpora still run as regression tests.
//
//===----------------------------------------------------------------------===//

#include "llvm/FuzzMutate/FuzzerCLI.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
// Optional, as with libFuzzer: a target defines it when it has setup to do.
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int *argc,
                                                          char ***argv);

int main(int argc, char *argv[]) {
  if (LLVMFuzzerInitialize)
    return llvm::runFuzzerOnInputs(argc, argv, LLVMFuzzerTestOneInput,
                                   LLVMFuzzerInitialize);
  return llvm::runFuzzerOnInputs(argc, argv, LLVMFuzzerTestOneInput);
}
