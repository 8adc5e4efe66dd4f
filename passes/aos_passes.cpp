// C entry points of the rewrite: run the passes, link rtlib, inline, clean up.
#include "aos_passes.h"
#include "clc_shards.h"
#include "kernel_rewrite.h"
#include "library_tables.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Transforms/IPO/AlwaysInliner.h>
#include <llvm/Transforms/IPO/GlobalDCE.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Support/raw_ostream.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

using namespace llvm;

enum { NVPTX_GLOBAL_SPACE = 1, NVPTX_CONSTANT_SPACE = 4 };

static void setError(char **err_msg, const std::string &msg)
{
	if (err_msg)
		*err_msg = strdup(msg.c_str());
}

static int linkRtlib(Module &M, const char *path, char **err_msg)
{
	auto Buf = MemoryBuffer::getFile(path);
	if (!Buf) {
		setError(err_msg, std::string("cannot read runtime library ") + path);
		return -ENOENT;
	}
	/* Lazily: the linker then reads only the functions the module needs. libclc for PTX is
	 * 8 MB of bitcode; read whole, it was most of a PTX compile's second. */
	auto RT = getOwningLazyBitcodeModule(std::move(*Buf), M.getContext());
	if (!RT) {
		setError(err_msg, "runtime library is not valid bitcode: " + toString(RT.takeError()));
		return -EINVAL;
	}
	(*RT)->setDataLayout(M.getDataLayout());
	(*RT)->setTargetTriple(M.getTargetTriple());
	if (Linker::linkModules(M, std::move(*RT), Linker::LinkOnlyNeeded)) {
		setError(err_msg, "linking the runtime library failed");
		return -EINVAL;
	}
	return 0;
}

extern "C" int aos_passes_rewrite(LLVMModuleRef module, const char *rtlib_path, unsigned flags, char **err_msg)
{
	if (err_msg)
		*err_msg = nullptr;
	if (!module || !rtlib_path)
		return -EINVAL;
	Module &M = *unwrap(module);

	LoopAnalysisManager LAM;
	FunctionAnalysisManager FAM;
	CGSCCAnalysisManager CGAM;
	ModuleAnalysisManager MAM;
	PassBuilder PB;
	PB.registerModuleAnalyses(MAM);
	PB.registerCGSCCAnalyses(CGAM);
	PB.registerFunctionAnalyses(FAM);
	PB.registerLoopAnalyses(LAM);
	PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);

	ModulePassManager Rewrite;
	FunctionPassManager Unroll;
	aos::addInnerLoopUnroll(Unroll);
	Rewrite.addPass(createModuleToFunctionPassAdaptor(std::move(Unroll)));
	Rewrite.addPass(aos::KernelRewritePass(!(flags & AOS_REWRITE_NO_DIRECT)));
	Rewrite.run(M, MAM);

	int rc = linkRtlib(M, rtlib_path, err_msg);
	if (rc)
		return rc;

	ModulePassManager Finish;
	Finish.addPass(aos::RtlibInternalizePass());
	Finish.addPass(AlwaysInlinerPass());
	FunctionPassManager FPM;
	FPM.addPass(SROAPass());
	FPM.addPass(EarlyCSEPass());
	FPM.addPass(InstCombinePass());
	FPM.addPass(SimplifyCFGPass());
	FPM.addPass(SROAPass());
	Finish.addPass(createModuleToFunctionPassAdaptor(std::move(FPM)));
	Finish.addPass(GlobalDCEPass());
	MAM.clear();
	Finish.run(M, MAM);

	std::string msg;
	raw_string_ostream os(msg);
	if (verifyModule(M, &os)) {
		setError(err_msg, "rewritten module does not verify: " + os.str());
		return -EINVAL;
	}
	return 0;
}

// Links the shards of `Dir` (passes/clc_shards.h) that define a function M calls. A shard carries
// everything its functions call, so one round links all; the loop only stops on names no shard
// defines (printf, say), whose shard is linked already.
static int linkShards(Module &M, const char *Dir, char **err_msg)
{
	bool Linked[aos::ClcShards] = {};
	for (;;) {
		SmallVector<unsigned, 16> Need;
		for (Function &F : M)
			if (F.isDeclaration() && !F.isIntrinsic() && !F.use_empty()) {
				unsigned S = aos::clcShardOf(F.getName());
				if (!Linked[S] && !is_contained(Need, S))
					Need.push_back(S);
			}
		if (Need.empty())
			return 0;
		for (unsigned S : Need) {
			Linked[S] = true;
			int rc = linkRtlib(M, aos::clcShardPath(Dir, S).c_str(), err_msg);
			if (rc)
				return rc;
		}
	}
}

// Links a library (whole, or from its shards), moves its tables (flags), makes every non-kernel
// function internal and drops the unused ones.
static int linkLibrary(LLVMModuleRef module, const char *path, bool sharded, unsigned flags, char **err_msg)
{
	if (err_msg)
		*err_msg = nullptr;
	Module &M = *unwrap(module);
	SmallPtrSet<GlobalVariable *, 16> Before;
	for (GlobalVariable &G : M.globals())
		Before.insert(&G);
	int rc = sharded ? linkShards(M, path, err_msg) : linkRtlib(M, path, err_msg);
	if (rc)
		return rc;
	if (flags & AOS_LINK_NVPTX_TABLES_TO_GLOBAL)
		aos::moveLibraryTables(M, Before, NVPTX_CONSTANT_SPACE, NVPTX_GLOBAL_SPACE);
	for (Function &F : M)
		if (!F.isDeclaration() && F.getCallingConv() != CallingConv::SPIR_KERNEL &&
		    !F.getName().startswith("llvm."))
			F.setLinkage(GlobalValue::InternalLinkage);
	ModuleAnalysisManager MAM;
	PassBuilder PB;
	PB.registerModuleAnalyses(MAM);
	ModulePassManager MPM;
	MPM.addPass(GlobalDCEPass());
	MPM.run(M, MAM);
	return 0;
}

extern "C" int aos_passes_link_library(LLVMModuleRef module, const char *path, unsigned flags, char **err_msg)
{
	return linkLibrary(module, path, false, flags, err_msg);
}

extern "C" int aos_passes_link_library_shards(LLVMModuleRef module, const char *dir, unsigned flags,
					      char **err_msg)
{
	return linkLibrary(module, dir, true, flags, err_msg);
}

extern "C" int aos_passes_strip_freeze(LLVMModuleRef module)
{
	int n = 0;
	for (Function &F : *unwrap(module))
		for (BasicBlock &BB : F)
			for (Instruction &I : make_early_inc_range(BB))
				if (auto *Fr = dyn_cast<FreezeInst>(&I)) {
					Fr->replaceAllUsesWith(Fr->getOperand(0));
					Fr->eraseFromParent();
					n++;
				}
	return n;
}

extern "C" int aos_kernel_results_read(LLVMModuleRef module, struct aos_kernel_result **out)
{
	*out = nullptr;
	NamedMDNode *R = unwrap(module)->getNamedMetadata(AOS_PASSES_RESULT_MD);
	int n = R ? (int)R->getNumOperands() : 0;
	if (n == 0)
		return 0;
	auto *res = (aos_kernel_result *)calloc(n, sizeof(aos_kernel_result));
	if (!res)
		return -ENOMEM;
	auto intOp = [](MDNode *N, unsigned i) -> unsigned {
		auto *C = mdconst::dyn_extract<ConstantInt>(N->getOperand(i));
		return C ? (unsigned)C->getZExtValue() : 0;
	};
	for (int i = 0; i < n; i++) {
		MDNode *N = R->getOperand(i);
		res[i].name = strdup(cast<MDString>(N->getOperand(0))->getString().str().c_str());
		res[i].rewritten = (int)intOp(N, 1);
		res[i].chunk = intOp(N, 2);
		res[i].inst_count = intOp(N, 3);
		StringRef reason = cast<MDString>(N->getOperand(4))->getString();
		res[i].reason = res[i].rewritten ? nullptr : strdup(reason.str().c_str());
	}
	*out = res;
	return n;
}

extern "C" void aos_kernel_results_free(struct aos_kernel_result *res, int count)
{
	for (int i = 0; res && i < count; i++) {
		free(res[i].name);
		free(res[i].reason);
	}
	free(res);
}
