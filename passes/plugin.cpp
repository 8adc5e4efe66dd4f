// opt-15 plugin: `opt -load-pass-plugin=libaos_opt_plugin.so -passes=aos-rewrite`
// so the rewrite can be tested on .ll files with FileCheck
// (also aos-rtlib-internalize, and the function
// passes aos-force-unroll-inner-loops, which only marks,
// aos-unroll-inner-loops, the JIT's mark-and-unroll step, and
// aos-recompose-rem, the SPIR module's last step).
#include "kernel_rewrite.h"
#include "rem_recompose.h"

#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/PassPlugin.h>

using namespace llvm;

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo()
{
	return {LLVM_PLUGIN_API_VERSION, "accelos", "0.1", [](PassBuilder &PB) {
			PB.registerPipelineParsingCallback(
				[](StringRef Name, ModulePassManager &MPM,
				   ArrayRef<PassBuilder::PipelineElement>) {
					if (Name == "aos-rewrite" || Name == "aos-rewrite-loop-only") {
						MPM.addPass(aos::KernelRewritePass(Name == "aos-rewrite"));
						return true;
					}
					if (Name == "aos-rtlib-internalize") {
						MPM.addPass(aos::RtlibInternalizePass());
						return true;
					}
					return false;
				});
			PB.registerPipelineParsingCallback(
				[](StringRef Name, FunctionPassManager &FPM,
				   ArrayRef<PassBuilder::PipelineElement>) {
					if (Name == "aos-force-unroll-inner-loops") {
						FPM.addPass(aos::ForceUnrollInnerLoopsPass());
						return true;
					}
					if (Name == "aos-unroll-inner-loops") {
						aos::addInnerLoopUnroll(FPM);
						return true;
					}
					if (Name == "aos-recompose-rem") {
						FPM.addPass(aos::RecomposeRemPass());
						return true;
					}
					return false;
				});
		}};
}
