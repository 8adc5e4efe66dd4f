// Lookup tables a linked library brings in, moved to another address space (library_tables.cpp).
#ifndef AOS_LIBRARY_TABLES_H
#define AOS_LIBRARY_TABLES_H

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Module.h>

namespace aos {

// Moves every constant array in address space `From` that is not in `Before` to address space
// `To`, where all its uses are loads and address arithmetic (anything else keeps it where it
// was); the moved loads are marked invariant. Returns how many moved.
unsigned moveLibraryTables(llvm::Module &M, const llvm::SmallPtrSetImpl<llvm::GlobalVariable *> &Before,
			   unsigned From, unsigned To);

} // namespace aos

#endif
