// A loop's unroll properties (llvm.loop.unroll.*), read and replaced: shared by the unroll passes
// of both targets (inner_loop_unroll.cpp, nvptx_unroll.cpp).
#ifndef AOS_LOOP_PROPERTIES_H
#define AOS_LOOP_PROPERTIES_H

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Metadata.h>

namespace aos {

inline bool isUnrollProperty(const llvm::Metadata *Op)
{
	const auto *N = llvm::dyn_cast<llvm::MDNode>(Op);
	const auto *S = N && N->getNumOperands() ? llvm::dyn_cast<llvm::MDString>(N->getOperand(0)) : nullptr;
	return S && S->getString().startswith("llvm.loop.unroll.");
}

inline bool hasUnrollProperty(const llvm::Loop &L)
{
	llvm::MDNode *ID = L.getLoopID();
	for (unsigned i = 1; ID && i < ID->getNumOperands(); i++)
		if (isUnrollProperty(ID->getOperand(i)))
			return true;
	return false;
}

// Replaces the loop's unroll properties by Property, keeping the others.
inline void setUnrollProperty(llvm::Loop &L, llvm::MDNode *Property)
{
	llvm::SmallVector<llvm::Metadata *, 4> ops;
	ops.push_back(nullptr); // the self reference
	if (llvm::MDNode *ID = L.getLoopID())
		for (unsigned i = 1; i < ID->getNumOperands(); i++)
			if (!isUnrollProperty(ID->getOperand(i)))
				ops.push_back(ID->getOperand(i));
	ops.push_back(Property);
	llvm::MDNode *ID = llvm::MDNode::getDistinct(L.getHeader()->getContext(), ops);
	ID->replaceOperandWith(0, ID);
	L.setLoopID(ID);
}

} // namespace aos

#endif
