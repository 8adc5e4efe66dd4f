// Partial unrolling of small constant-trip inner loops for PTX.
//
// LLVM's NVPTX target unrolls a loop partially only while the copies stay
// within a quarter of the O2 threshold (75 instructions), so a loop body of
// 20-40 instructions, typical of an n-body or stencil inner loop, stays rolled.
// NVIDIA's own compiler unrolls such a loop by 4 (nvcc -ptx of the CUDA twin of
// tests/kernels/nbody_lite.cl): the copies' independent chains (a shared-memory
// load, a rsqrt) overlap, which matters at the few warps per SM a small launch
// has. After the optimisation pipeline, every innermost loop with a constant
// trip count and no unroll property of its own gets llvm.loop.unroll.count,
// and LLVM's unroller runs in its only-when-forced mode, so no other loop
// changes. The count divides the trip count: no remainder loop, results as
// rolled. On an H200, nbody_lite in the loop shape went from 0.62x native to
// 0.92x (bench/RESULTS.md §3, session 28). Loops with a trip count known only
// at run time stay rolled: unrolled by 4 with a remainder, heavy_loop lost 1 %.
#include "aos_passes.h"
#include "loop_properties.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/LoopPassManager.h>
#include <llvm/Transforms/Scalar/LoopUnrollPass.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>

using namespace llvm;

namespace {

// Copies of at most this many instructions in all: LLVM's O2 full-unroll threshold, half of it.
constexpr unsigned MaxUnrolledInstructions = 150;
constexpr unsigned MaxCount = 4;

unsigned loopInstructions(const Loop &L)
{
	unsigned n = 0;
	for (const BasicBlock *BB : L.blocks())
		n += BB->sizeWithoutDebug();
	return n;
}

// The count for L: the largest of 4 and 2 that divides the trip count and keeps the copies small;
// 0 for none.
unsigned unrollCount(const Loop &L, ScalarEvolution &SE)
{
	if (!L.isInnermost() || aos::hasUnrollProperty(L))
		return 0;
	unsigned trips = SE.getSmallConstantTripCount(&L);
	unsigned size = loopInstructions(L);
	for (unsigned count = MaxCount; count >= 2; count /= 2)
		if (trips >= 2 * count && trips % count == 0 && count * size <= MaxUnrolledInstructions)
			return count;
	return 0;
}

// Marks F's small loops and, where it marked one, runs Then (the unroller and its clean-up) on F:
// a function with no such loop costs its loop analyses only.
struct UnrollSmallLoopsPass : PassInfoMixin<UnrollSmallLoopsPass> {
	unsigned *marked;
	FunctionPassManager *Then;
	PreservedAnalyses run(Function &F, FunctionAnalysisManager &AM)
	{
		ScalarEvolution &SE = AM.getResult<ScalarEvolutionAnalysis>(F);
		bool changed = false;
		for (Loop *L : AM.getResult<LoopAnalysis>(F).getLoopsInPreorder())
			if (unsigned count = unrollCount(*L, SE)) {
				LLVMContext &C = F.getContext();
				aos::setUnrollProperty(*L, MDNode::get(C, {MDString::get(C, "llvm.loop.unroll.count"),
									   ConstantAsMetadata::get(ConstantInt::get(
										   Type::getInt32Ty(C), count))}));
				++*marked;
				changed = true;
			}
		if (!changed)
			return PreservedAnalyses::all();
		Then->run(F, AM);
		return PreservedAnalyses::none();
	}
};

} // namespace

extern "C" int aos_passes_nvptx_unroll(LLVMModuleRef module, LLVMTargetMachineRef tm)
{
	if (!module)
		return -EINVAL;
	Module &M = *unwrap(module);
	// LLVMTargetMachineRef wraps a TargetMachine by reinterpret_cast (llvm-c/TargetMachine.h).
	PassBuilder PB(reinterpret_cast<TargetMachine *>(tm));
	LoopAnalysisManager LAM;
	FunctionAnalysisManager FAM;
	CGSCCAnalysisManager CGAM;
	ModuleAnalysisManager MAM;
	PB.registerModuleAnalyses(MAM);
	PB.registerCGSCCAnalyses(CGAM);
	PB.registerFunctionAnalyses(FAM);
	PB.registerLoopAnalyses(LAM);
	PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);

	unsigned marked = 0;
	FunctionPassManager Then;
	Then.addPass(LoopUnrollPass(LoopUnrollOptions(2, /*OnlyWhenForced=*/true)));
	Then.addPass(EarlyCSEPass());
	Then.addPass(InstCombinePass());
	Then.addPass(SimplifyCFGPass());
	ModulePassManager MPM;
	MPM.addPass(createModuleToFunctionPassAdaptor(UnrollSmallLoopsPass{{}, &marked, &Then}));
	MPM.run(M, MAM);
	return (int)marked;
}
