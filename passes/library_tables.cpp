// libclc's float math (log, log1p, exp, pow, cbrt, sinh...) reads tables in __constant with an
// index that differs from work-item to work-item. NVIDIA's constant memory serves one address
// per warp at a time, so such a load runs up to 32 times over; global memory through the
// read-only cache serves a warp's addresses together. The tables therefore move to global
// memory; the application's own __constant data stays where NVIDIA's compiler puts it.
#include "library_tables.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Operator.h>

using namespace llvm;

namespace {

// True when every use of V is a load from it or address arithmetic whose uses are the same.
bool onlyLoadsAndAddressing(Value *V)
{
	for (User *U : V->users()) {
		if (auto *LI = dyn_cast<LoadInst>(U)) {
			if (LI->getPointerOperand() != V)
				return false;
		} else if (auto *GEP = dyn_cast<GEPOperator>(U)) {
			if (GEP->getPointerOperand() != V || !onlyLoadsAndAddressing(GEP))
				return false;
		} else {
			return false;
		}
	}
	return true;
}

// Re-creates the uses of Old (checked by onlyLoadsAndAddressing) on New, in New's address space.
void rewriteUses(Value *Old, Value *New, SmallVectorImpl<Instruction *> &Dead)
{
	for (User *U : make_early_inc_range(Old->users())) {
		if (auto *LI = dyn_cast<LoadInst>(U)) {
			IRBuilder<> B(LI);
			LoadInst *NL = B.CreateAlignedLoad(LI->getType(), New, LI->getAlign(), LI->isVolatile());
			NL->copyMetadata(*LI);
			NL->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(LI->getContext(), {}));
			NL->takeName(LI);
			LI->replaceAllUsesWith(NL);
			Dead.push_back(LI);
		} else if (auto *GI = dyn_cast<GetElementPtrInst>(U)) {
			IRBuilder<> B(GI);
			SmallVector<Value *, 4> Idx(GI->indices());
			Value *NG = B.CreateGEP(GI->getSourceElementType(), New, Idx, GI->getName(), GI->isInBounds());
			rewriteUses(GI, NG, Dead);
			Dead.push_back(GI);
		} else if (auto *CE = dyn_cast<ConstantExpr>(U)) {
			auto *GEP = cast<GEPOperator>(CE);
			SmallVector<Constant *, 4> Idx;
			for (Value *I : GEP->indices())
				Idx.push_back(cast<Constant>(I));
			Constant *NC = ConstantExpr::getGetElementPtr(GEP->getSourceElementType(), cast<Constant>(New),
								      Idx, GEP->isInBounds());
			rewriteUses(CE, NC, Dead);
		}
	}
}

} // namespace

namespace aos {

unsigned moveLibraryTables(Module &M, const SmallPtrSetImpl<GlobalVariable *> &Before, unsigned From, unsigned To)
{
	SmallVector<GlobalVariable *, 16> Tables;
	for (GlobalVariable &G : M.globals())
		if (G.getAddressSpace() == From && G.isConstant() && G.hasInitializer() &&
		    G.getValueType()->isArrayTy() && !Before.count(&G) && onlyLoadsAndAddressing(&G))
			Tables.push_back(&G);
	SmallVector<Instruction *, 64> Dead;
	for (GlobalVariable *G : Tables) {
		auto *NG = new GlobalVariable(M, G->getValueType(), true, GlobalValue::InternalLinkage,
					      G->getInitializer(), G->getName() + ".global", nullptr,
					      GlobalValue::NotThreadLocal, To);
		NG->setAlignment(G->getAlign());
		rewriteUses(G, NG, Dead);
		for (Instruction *I : Dead)
			I->eraseFromParent();
		Dead.clear();
		G->removeDeadConstantUsers();
		NG->takeName(G);
		G->eraseFromParent();
	}
	return Tables.size();
}

} // namespace aos
