// Full unrolling of some innermost loops before the rewrite, on SPIR.
//
// On SPIR the JIT's front end does not unroll, as PoCL's does not
// (jit/frontend.c): every loop arrives marked llvm.loop.unroll.disable. PoCL's
// loop vectorizer then works on the innermost loop of a work-item loop nest.
// Two kinds of innermost loop do better unrolled (bench/RESULTS.md §3,
// session 10, direct shape against native):
//  - a loop with a barrier in it, not itself inside a loop. PoCL must keep it
//    around its work-item loops, one per barrier-free region and trip;
//    unrolled, the regions are straight code (reduce_local_decl 2.4-4.2x,
//    scan_local 1.5x). Inside an outer loop the unrolled regions are all in
//    that loop, and every value the outer loop carries is saved to and
//    restored from PoCL's per-work-item context at each of their barriers:
//    Parboil's splitSort (8 trips of 2 barriers in a loop of 4) ran at
//    0.71-0.78x native unrolled, 0.98-1.0x rolled (RESULTS §3, session 24).
//  - a loop that calls no function (intrinsics aside): arithmetic and memory
//    only. Unrolled, the work-item loop around it is what PoCL vectorizes
//    (matmul_tiled 2.4x, lbm 2.3x).
// A loop that calls a built-in (clamp, abs, math) stays rolled: PoCL inlines
// the built-in later and vectorizes that small loop itself, not its unrolled
// copies (Parboil's mb_sad_calc 0.69x unrolled, 0.94x rolled). Outer loops
// stay rolled: unrolling bitonic_local's whole nest (21 regions) made it 0.74x.
// A call-free loop between the barriers of an outer loop is unrolled only
// when it has few memory accesses in all (MaxHoistedAccesses): unrolled, each
// access's address no longer depends on the inner loop, so LLVM hoists it out
// of the outer one, above the barrier, and PoCL keeps every value live across
// a barrier in a per-work-item context array. Parboil's mysgemmNT (16 trips,
// two local loads, 16x16 groups) got 32 such arrays, 64 KiB per group, more
// than L1 holds: 0.61-0.79x unrolled, 0.96-1.0x rolled. matmul_tiled (8 trips,
// two loads) gains 2.3x unrolled.
//
// Such a loop's unroll properties become llvm.loop.unroll.full, then LLVM's
// full unroller runs in its only-when-forced mode, so no other loop changes.
// A loop whose trip count is not a constant gets its unroll.disable back
// (KeepLeftLoopsRolledPass), so PoCL sees it as it sees the native one. A
// user's "#pragma nounroll" looks the same as the front end's mark and is
// overridden on these loops; it changes speed only, never results.
#include "kernel_rewrite.h"
#include "loop_properties.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Metadata.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/LoopPassManager.h>
#include <llvm/Transforms/Scalar/LoopUnrollPass.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>
#include <llvm/Transforms/Utils/LoopUtils.h>

using namespace llvm;

namespace aos {
namespace {

// Memory accesses of one call-free loop between barriers, summed over its
// trips, up to which it is still unrolled (see the top of the file).
constexpr unsigned MaxHoistedAccesses = 16;

bool insideBarrierLoop(const Loop &L)
{
	for (const Loop *P = L.getParentLoop(); P; P = P->getParentLoop())
		if (loopCallsAny(*P, isBarrierFunction))
			return true;
	return false;
}

unsigned memoryAccesses(const Loop &L)
{
	unsigned n = 0;
	for (const BasicBlock *BB : L.blocks())
		for (const Instruction &I : *BB)
			n += isa<LoadInst>(I) || isa<StoreInst>(I);
	return n;
}

bool worthUnrolling(const Loop &L, ScalarEvolution &SE)
{
	if (!L.isInnermost())
		return false;
	if (loopCallsAny(L, isBarrierFunction))
		return !L.getParentLoop();
	if (loopCallsAny(L, [](const Function *F) { return !F || !F->isIntrinsic(); }))
		return false;
	if (!insideBarrierLoop(L))
		return true;
	unsigned trips = SE.getSmallConstantTripCount(&L);
	return trips && trips * memoryAccesses(L) <= MaxHoistedAccesses;
}

// On SPIR, sets the unroll property of every loop of F that Pick selects.
template <typename Pred>
PreservedAnalyses relabelLoops(Function &F, FunctionAnalysisManager &AM, Pred pick, const char *property)
{
	if (!isSpirModule(*F.getParent()))
		return PreservedAnalyses::all();
	bool changed = false;
	for (Loop *L : AM.getResult<LoopAnalysis>(F).getLoopsInPreorder())
		if (pick(*L)) {
			setUnrollProperty(*L, MDNode::get(F.getContext(), MDString::get(F.getContext(), property)));
			changed = true;
		}
	return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace

PreservedAnalyses ForceUnrollInnerLoopsPass::run(Function &F, FunctionAnalysisManager &AM)
{
	ScalarEvolution &SE = AM.getResult<ScalarEvolutionAnalysis>(F);
	return relabelLoops(F, AM, [&SE](const Loop &L) { return worthUnrolling(L, SE); }, "llvm.loop.unroll.full");
}

PreservedAnalyses KeepLeftLoopsRolledPass::run(Function &F, FunctionAnalysisManager &AM)
{
	return relabelLoops(F, AM, [](const Loop &L) { return findOptionMDForLoop(&L, "llvm.loop.unroll.full"); },
			    "llvm.loop.unroll.disable");
}

void addInnerLoopUnroll(FunctionPassManager &FPM)
{
	FPM.addPass(ForceUnrollInnerLoopsPass());
	FPM.addPass(createFunctionToLoopPassAdaptor(
		LoopFullUnrollPass(/*OptLevel=*/2, /*OnlyWhenForced=*/true)));
	FPM.addPass(KeepLeftLoopsRolledPass());
	FPM.addPass(SimplifyCFGPass());
	FPM.addPass(InstCombinePass());
}

} // namespace aos
