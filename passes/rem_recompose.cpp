// X - (X / Y) * Y back to X % Y, for the SPIR devices.
//
// clang's -O2 ends with DivRemPairs, which, for a target without a combined divide-and-remainder
// instruction (spir64 has none), rewrites a remainder whose quotient is also computed as
// X - (X / Y) * Y. PoCL's pipeline does not run DivRemPairs again for x86, where one idiv gives
// both, so the multiply and subtract stayed in the machine code. Parboil's mb_sad_calc
// (pos % side beside pos / side, per work-item) ran at 0.945x native on PoCL with them, through
// the JIT with no rewrite at all (bench/RESULTS.md §3, session 34). The remainder as the source
// wrote it is what PoCL compiles from source, so that is what the SPIR module carries.
#include "aos_passes.h"
#include "rem_recompose.h"

#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PatternMatch.h>

#include <optional>

using namespace llvm;
using namespace llvm::PatternMatch;

namespace aos {

namespace {

// The remainder opcode when Div is X / Y (signed or unsigned), else nothing.
std::optional<Instruction::BinaryOps> remainderOf(Value *Div, Value *X, Value *Y)
{
	if (match(Div, m_SDiv(m_Specific(X), m_Specific(Y))))
		return Instruction::SRem;
	if (match(Div, m_UDiv(m_Specific(X), m_Specific(Y))))
		return Instruction::URem;
	return std::nullopt;
}

} // namespace

unsigned recomposeRem(Function &F)
{
	unsigned n = 0;
	for (BasicBlock &BB : F)
		for (Instruction &I : make_early_inc_range(BB)) {
			Value *X;
			BinaryOperator *Mul;
			if (!match(&I, m_Sub(m_Value(X), m_BinOp(Mul))) || Mul->getOpcode() != Instruction::Mul)
				continue;
			// (X / Y) * Y with the factors in either order.
			Value *Y = nullptr;
			std::optional<Instruction::BinaryOps> Rem;
			for (unsigned k = 0; k < 2 && !Rem; k++) {
				Y = Mul->getOperand(1 - k);
				Rem = remainderOf(Mul->getOperand(k), X, Y);
			}
			if (!Rem)
				continue;
			// X and Y are defined before the division, which the multiply uses: they dominate I.
			auto *R = BinaryOperator::Create(*Rem, X, Y, I.getName() + ".rem", &I);
			I.replaceAllUsesWith(R);
			I.eraseFromParent();
			if (Mul->use_empty())
				Mul->eraseFromParent();
			n++;
		}
	return n;
}

} // namespace aos

extern "C" int aos_passes_recompose_rem(LLVMModuleRef module)
{
	if (!module)
		return -EINVAL;
	unsigned n = 0;
	for (Function &F : *unwrap(module))
		if (!F.isDeclaration())
			n += aos::recomposeRem(F);
	return (int)n;
}
