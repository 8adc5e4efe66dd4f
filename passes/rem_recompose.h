// X - (X / Y) * Y back to X % Y (passes/rem_recompose.cpp).
#ifndef AOS_REM_RECOMPOSE_H
#define AOS_REM_RECOMPOSE_H

#include <llvm/IR/Function.h>
#include <llvm/IR/PassManager.h>

namespace aos {

// Rewrites every X - (X / Y) * Y of F (signed or unsigned) as X % Y; returns how many.
unsigned recomposeRem(llvm::Function &F);

// The same as a function pass, for the opt plugin's FileCheck tests (aos-recompose-rem).
struct RecomposeRemPass : llvm::PassInfoMixin<RecomposeRemPass> {
	llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &)
	{
		return recomposeRem(F) ? llvm::PreservedAnalyses::none() : llvm::PreservedAnalyses::all();
	}
};

} // namespace aos

#endif
