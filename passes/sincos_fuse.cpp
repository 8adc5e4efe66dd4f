// sin(x) and cos(x) of one x as one call, for PTX.
//
// rtlib's sin and cos for NVPTX (rtlib/aos_trig.h) each reduce x by pi/2 before their polynomials;
// mri-q's ComputeQ takes both of one argument in its inner loop, and after inlining the two
// reductions stay apart (each ends in a branch for large arguments, which no later pass merges).
// Calls to the scalar sin and cos with the same argument in the same block become one call to
// rtlib's aos_sincos_pair, linked with the rest of rtlib. The pair computes both values with
// the single functions' code, so the results do not change. On an H200, ComputeQ in the loop
// shape went from 0.78x native (0.74x before the branch-free quadrant) to 1.17x (bench/RESULTS.md
// §3, session 28).
#include "aos_passes.h"

#include <llvm/ADT/MapVector.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

using namespace llvm;

namespace {

constexpr const char *SinName = "_Z3sinf";
constexpr const char *CosName = "_Z3cosf";
constexpr const char *PairName = "aos_sincos_pair";

struct Pair {
	CallInst *Sin = nullptr, *Cos = nullptr;
};

// The calls of F to the function named Name, by (block, argument), in program order.
void collect(Function &F, StringRef Name, bool IsSin, MapVector<std::pair<BasicBlock *, Value *>, Pair> &Pairs)
{
	for (BasicBlock &BB : F)
		for (Instruction &I : BB) {
			auto *CI = dyn_cast<CallInst>(&I);
			Function *Callee = CI ? CI->getCalledFunction() : nullptr;
			// A declaration: the built-in, which rtlib defines; never a program's own definition.
			if (!Callee || !Callee->isDeclaration() || Callee->getName() != Name || CI->arg_size() != 1)
				continue;
			Pair &P = Pairs[{&BB, CI->getArgOperand(0)}];
			CallInst *&Slot = IsSin ? P.Sin : P.Cos;
			if (!Slot)
				Slot = CI;
		}
}

} // namespace

extern "C" int aos_passes_fuse_sincos(LLVMModuleRef module)
{
	if (!module)
		return -EINVAL;
	Module &M = *unwrap(module);
	LLVMContext &C = M.getContext();
	Type *F32 = Type::getFloatTy(C);
	FunctionCallee PairFn;
	int fused = 0;
	for (Function &F : M) {
		if (F.isDeclaration())
			continue;
		MapVector<std::pair<BasicBlock *, Value *>, Pair> Pairs;
		collect(F, SinName, true, Pairs);
		collect(F, CosName, false, Pairs);
		for (auto &KV : Pairs) {
			Pair &P = KV.second;
			if (!P.Sin || !P.Cos)
				continue;
			if (!PairFn)
				PairFn = M.getOrInsertFunction(PairName, FixedVectorType::get(F32, 2), F32);
			// The earlier call of the two: the argument is defined before it.
			CallInst *First = P.Sin->comesBefore(P.Cos) ? P.Sin : P.Cos;
			IRBuilder<> B(First);
			CallInst *Both = B.CreateCall(PairFn, {KV.first.second}, "sincos");
			P.Sin->replaceAllUsesWith(B.CreateExtractElement(Both, uint64_t(0), "sin"));
			P.Cos->replaceAllUsesWith(B.CreateExtractElement(Both, uint64_t(1), "cos"));
			P.Sin->eraseFromParent();
			P.Cos->eraseFromParent();
			fused++;
		}
	}
	return fused;
}
