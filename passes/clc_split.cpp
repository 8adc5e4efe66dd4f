// Build tool: aos-clc-split LIBCLC.bc OUTDIR. Writes libclc as aos::ClcShards bitcode files,
// each holding the functions clcShardOf() assigns it plus everything they reference, so that
// linking a shard resolves a built-in completely (libclc defines everything linkonce_odr: two
// shards may both carry a helper, and the linker keeps one).
#include "clc_shards.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include <vector>

using namespace llvm;

// Adds the global values `C` refers to (through constant expressions and aggregates).
static void collectGlobals(const Constant *C, SmallPtrSetImpl<const Constant *> &Seen,
			   std::vector<const GlobalValue *> &Work)
{
	if (!Seen.insert(C).second)
		return;
	if (auto *GV = dyn_cast<GlobalValue>(C)) {
		Work.push_back(GV);
		return;
	}
	for (const Value *Op : C->operands())
		if (auto *OpC = dyn_cast<Constant>(Op))
			collectGlobals(OpC, Seen, Work);
}

// Everything the shard's roots need, transitively.
static SmallPtrSet<const GlobalValue *, 32> closure(std::vector<const GlobalValue *> Work)
{
	SmallPtrSet<const GlobalValue *, 32> Keep;
	SmallPtrSet<const Constant *, 32> Seen;
	while (!Work.empty()) {
		const GlobalValue *GV = Work.back();
		Work.pop_back();
		if (!Keep.insert(GV).second)
			continue;
		if (auto *F = dyn_cast<Function>(GV)) {
			for (const BasicBlock &BB : *F)
				for (const Instruction &I : BB)
					for (const Value *Op : I.operands())
						if (auto *C = dyn_cast<Constant>(Op))
							collectGlobals(C, Seen, Work);
		} else if (auto *G = dyn_cast<GlobalVariable>(GV)) {
			if (G->hasInitializer())
				collectGlobals(G->getInitializer(), Seen, Work);
		}
	}
	return Keep;
}

// CloneModule declares every global value it does not define; a shard keeps only those used.
static void dropUnusedDeclarations(Module &M)
{
	for (Function &F : make_early_inc_range(M.functions()))
		if (F.isDeclaration() && F.use_empty())
			F.eraseFromParent();
	for (GlobalVariable &G : make_early_inc_range(M.globals()))
		if (G.isDeclaration() && G.use_empty())
			G.eraseFromParent();
	// The library's llvm.ident lists one entry per source file; every linked shard would
	// append them all again.
	if (NamedMDNode *Ident = M.getNamedMetadata("llvm.ident"))
		M.eraseNamedMetadata(Ident);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		errs() << "usage: aos-clc-split LIBCLC.bc OUTDIR\n";
		return 2;
	}
	LLVMContext Ctx;
	auto Buf = MemoryBuffer::getFile(argv[1]);
	if (!Buf) {
		errs() << "aos-clc-split: cannot read " << argv[1] << "\n";
		return 1;
	}
	auto Lib = parseBitcodeFile(**Buf, Ctx);
	if (!Lib) {
		errs() << "aos-clc-split: " << argv[1] << ": " << toString(Lib.takeError()) << "\n";
		return 1;
	}
	if (std::error_code EC = sys::fs::create_directories(argv[2])) {
		errs() << "aos-clc-split: " << argv[2] << ": " << EC.message() << "\n";
		return 1;
	}
	std::vector<std::vector<const GlobalValue *>> Roots(aos::ClcShards);
	for (const Function &F : **Lib)
		if (!F.isDeclaration())
			Roots[aos::clcShardOf(F.getName())].push_back(&F);
	for (unsigned S = 0; S < aos::ClcShards; S++) {
		auto Keep = closure(Roots[S]);
		ValueToValueMapTy VMap;
		std::unique_ptr<Module> Shard =
			CloneModule(**Lib, VMap, [&](const GlobalValue *GV) { return Keep.count(GV) != 0; });
		dropUnusedDeclarations(*Shard);
		if (verifyModule(*Shard, &errs())) {
			errs() << "aos-clc-split: shard " << S << " does not verify\n";
			return 1;
		}
		std::string Path = aos::clcShardPath(argv[2], S);
		std::error_code EC;
		raw_fd_ostream Out(Path, EC, sys::fs::OF_None);
		if (EC) {
			errs() << "aos-clc-split: " << Path << ": " << EC.message() << "\n";
			return 1;
		}
		WriteBitcodeToFile(*Shard, Out);
	}
	return 0;
}
