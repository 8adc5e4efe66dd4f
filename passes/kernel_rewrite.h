// New-pass-manager passes of the accelOS rewrite (used by aos_passes.cpp and
// the opt plugin). See kernel_rewrite.cpp for the design.
#ifndef AOS_KERNEL_REWRITE_H
#define AOS_KERNEL_REWRITE_H

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/PassManager.h>

namespace aos {

// Rewrites every kernel into a scheduling kernel over a virtual NDRange, and (Direct) its
// direct twin.
struct KernelRewritePass : llvm::PassInfoMixin<KernelRewritePass> {
	explicit KernelRewritePass(bool Direct = true) : Direct(Direct) {}
	llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
	bool Direct;
};

// Makes the linked runtime library internal and always-inline.
struct RtlibInternalizePass : llvm::PassInfoMixin<RtlibInternalizePass> {
	llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
};

// On SPIR, marks llvm.loop.unroll.full the innermost loops that contain a
// barrier or call no function; LLVM's full unroller, run only-when-forced
// after it, unrolls those with a constant trip count (inner_loop_unroll.cpp).
struct ForceUnrollInnerLoopsPass : llvm::PassInfoMixin<ForceUnrollInnerLoopsPass> {
	llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &AM);
};

// On SPIR, gives loops still marked llvm.loop.unroll.full after the full
// unroller (trip count not a constant) llvm.loop.unroll.disable back.
struct KeepLeftLoopsRolledPass : llvm::PassInfoMixin<KeepLeftLoopsRolledPass> {
	llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &AM);
};

// ForceUnrollInnerLoopsPass, the only-when-forced full unroller,
// KeepLeftLoopsRolledPass and a cleanup.
void addInnerLoopUnroll(llvm::FunctionPassManager &FPM);

bool rewriteKernels(llvm::Module &M, bool Direct);

// barrier() / work_group_barrier(), by their mangled names.
bool isBarrierFunction(const llvm::Function *F);
// Whether some call in L (its subloops included) has a callee that Pick
// selects; an indirect call passes nullptr.
template <typename Pred> bool loopCallsAny(const llvm::Loop &L, Pred pick)
{
	for (const llvm::BasicBlock *BB : L.blocks())
		for (const llvm::Instruction &I : *BB)
			if (const auto *CB = llvm::dyn_cast<llvm::CallBase>(&I))
				if (pick(CB->getCalledFunction()))
					return true;
	return false;
}
// Whether M targets SPIR (spir, spir64): PoCL and the direct shape.
bool isSpirModule(const llvm::Module &M);

} // namespace aos

#endif
