// Full unrolling of some innermost loops before the rewrite, on SPIR.
//
// On SPIR the JIT's front end does not unroll, as PoCL's does not
// (jit/frontend.c): every loop arrives marked llvm.loop.unroll.disable. PoCL's
// loop vectorizer then works on the innermost loop of a work-item loop nest.
// Two kinds of innermost loop do better unrolled (bench/RESULTS.md §3,
// session 10, direct shape against native):
//  - a loop with a barrier in it. PoCL must keep it around its work-item
//    loops, one per barrier-free region and trip; unrolled, the regions are
//    straight code (reduce_local_decl 2.4-4.2x, scan_local 1.5x).
//  - a loop that calls no function (intrinsics aside): arithmetic and memory
//    only. Unrolled, the work-item loop around it is what PoCL vectorizes
//    (matmul_tiled 2.4x, lbm 2.3x).
// A loop that calls a built-in (clamp, abs, math) stays rolled: PoCL inlines
// the built-in later and vectorizes that small loop itself, not its unrolled
// copies (Parboil's mb_sad_calc 0.69x unrolled, 0.94x rolled). Outer loops
// stay rolled: unrolling bitonic_local's whole nest (21 regions) made it 0.74x.
//
// Such a loop's unroll properties become llvm.loop.unroll.full, then LLVM's
// full unroller runs in its only-when-forced mode, so no other loop changes.
// A loop whose trip count is not a constant gets its unroll.disable back
// (KeepLeftLoopsRolledPass), so PoCL sees it as it sees the native one. A
// user's "#pragma nounroll" looks the same as the front end's mark and is
// overridden on these loops; it changes speed only, never results.
#include "kernel_rewrite.h"

#include <llvm/Analysis/LoopInfo.h>
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

// Whether some call in the loop has a callee (null: an indirect call) that
// satisfies Pred.
template <typename Pred> bool anyCall(const Loop &L, Pred pred)
{
	for (const BasicBlock *BB : L.blocks())
		for (const Instruction &I : *BB)
			if (const auto *CB = dyn_cast<CallBase>(&I))
				if (pred(CB->getCalledFunction()))
					return true;
	return false;
}

bool worthUnrolling(const Loop &L)
{
	if (!L.isInnermost())
		return false;
	bool barrier = anyCall(L, [](const Function *F) { return isBarrierFunction(F); });
	bool calls = anyCall(L, [](const Function *F) { return !F || !F->isIntrinsic(); });
	return barrier || !calls;
}

bool isUnrollProperty(const Metadata *Op)
{
	const auto *N = dyn_cast<MDNode>(Op);
	const auto *S = N && N->getNumOperands() ? dyn_cast<MDString>(N->getOperand(0)) : nullptr;
	return S && S->getString().startswith("llvm.loop.unroll.");
}

// Replaces the loop's unroll properties by !{!"PROPERTY"}, keeping the others.
void setUnrollProperty(Loop &L, const char *property)
{
	LLVMContext &C = L.getHeader()->getContext();
	SmallVector<Metadata *, 4> ops;
	ops.push_back(nullptr); // the self reference
	if (MDNode *ID = L.getLoopID())
		for (unsigned i = 1; i < ID->getNumOperands(); i++)
			if (!isUnrollProperty(ID->getOperand(i)))
				ops.push_back(ID->getOperand(i));
	ops.push_back(MDNode::get(C, MDString::get(C, property)));
	MDNode *ID = MDNode::getDistinct(C, ops);
	ID->replaceOperandWith(0, ID);
	L.setLoopID(ID);
}

bool isSpir(const Function &F)
{
	return StringRef(F.getParent()->getTargetTriple()).startswith("spir");
}

} // namespace

PreservedAnalyses ForceUnrollInnerLoopsPass::run(Function &F, FunctionAnalysisManager &AM)
{
	if (!isSpir(F))
		return PreservedAnalyses::all();
	LoopInfo &LI = AM.getResult<LoopAnalysis>(F);
	bool changed = false;
	for (Loop *L : LI.getLoopsInPreorder())
		if (worthUnrolling(*L)) {
			setUnrollProperty(*L, "llvm.loop.unroll.full");
			changed = true;
		}
	// Only metadata changed: the CFG and every analysis stay valid.
	return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

PreservedAnalyses KeepLeftLoopsRolledPass::run(Function &F, FunctionAnalysisManager &AM)
{
	if (!isSpir(F))
		return PreservedAnalyses::all();
	LoopInfo &LI = AM.getResult<LoopAnalysis>(F);
	bool changed = false;
	for (Loop *L : LI.getLoopsInPreorder())
		if (findOptionMDForLoop(L, "llvm.loop.unroll.full")) {
			setUnrollProperty(*L, "llvm.loop.unroll.disable");
			changed = true;
		}
	return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
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
