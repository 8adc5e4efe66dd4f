// Kernel rewrite: every kernel K becomes a persistent work-group loop.
//
//   1. Callees of K that (transitively) use grid built-ins are inlined into K,
//      so built-ins in helpers are replaced too and K's local data stays
//      kernel-scoped.
//   2. K's body is cloned into K.aos.body(args..., ctx), a regular function
//      whose grid built-ins read the current virtual group from `ctx`
//      (rtlib aos_rt_*). get_local_id/get_local_size/get_work_dim stay
//      physical; on NVPTX, where neither libclc nor PTX has them,
//      get_work_dim, get_local_linear_id and get_enqueued_local_size come
//      from the runtime too.
//   3. A new kernel under K's name takes K's arguments plus the virtual NDRange
//      record; it dequeues chunks of virtual groups (rtlib aos_rt_dequeue,
//      which checks the stop/budget field) and calls the body per group.
//   4. The body is inlined into the scheduling kernel (local data stays valid).
//   5. Unless asked not to, a second, loop-free kernel aos_direct_K runs the
//      body once per physical group, for the virtual group its place in the
//      wave's box says (accelos/vndrange.h, "Direct shape"); K's local
//      variables are cloned for it under its own name. On SPIR a third,
//      aos_cut_K, is the same behind a claim on a cut record (struct
//      aos_cut), so that a running wave can be stopped at a group boundary.
//
// Kernels that cannot be rewritten are left alone; the reason is recorded in
// !accelos.kernels. Rewritten kernels carry !accelos.rewritten, so running the
// pass again changes nothing.
#include "kernel_rewrite.h"

#include "accelos/vndrange.h"
#include "aos_passes.h"
#include "chunking.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <map>
#include <set>

using namespace llvm;

namespace aos {
namespace {

const char *const kRewrittenMD = "accelos.rewritten";

const char *const kWorkDim = "_Z12get_work_dimv";

bool isNvptx(const Module &M)
{
	return StringRef(M.getTargetTriple()).startswith("nvptx");
}

// Grid built-ins (mangled OpenCL C names) and their runtime replacements. On NVPTX three more
// come from the runtime: libclc has none of them, and PTX has no register for the work
// dimension, which the record holds (the physical launch keeps the original dimensions).
const std::map<std::string, std::string> &gridBuiltins(const Module &M)
{
	static const std::map<std::string, std::string> table = {
		{"_Z12get_group_idj", "aos_rt_group_id"},
		{"_Z13get_global_idj", "aos_rt_global_id"},
		{"_Z14get_num_groupsj", "aos_rt_num_groups"},
		{"_Z15get_global_sizej", "aos_rt_global_size"},
		{"_Z17get_global_offsetj", "aos_rt_global_offset"},
		{"_Z20get_global_linear_idv", "aos_rt_global_linear_id"},
	};
	static const std::map<std::string, std::string> nvptx = [] {
		std::map<std::string, std::string> t = table;
		t[kWorkDim] = "aos_rt_work_dim";
		t["_Z19get_local_linear_idv"] = "aos_rt_local_linear_id";
		t["_Z23get_enqueued_local_sizej"] = "aos_rt_enqueued_local_size";
		return t;
	}();
	return isNvptx(M) ? nvptx : table;
}

bool isGridBuiltin(const Function *F)
{
	return F && F->getParent() && gridBuiltins(*F->getParent()).count(F->getName().str());
}

std::set<Function *> annotatedKernels(Module &M)
{
	std::set<Function *> out;
	if (NamedMDNode *NA = M.getNamedMetadata("nvvm.annotations"))
		for (MDNode *N : NA->operands()) {
			if (N->getNumOperands() < 2)
				continue;
			auto *Kind = dyn_cast<MDString>(N->getOperand(1));
			auto *VM = dyn_cast_or_null<ValueAsMetadata>(N->getOperand(0).get());
			if (Kind && Kind->getString() == "kernel" && VM)
				if (auto *F = dyn_cast<Function>(VM->getValue()))
					out.insert(F);
		}
	return out;
}

std::vector<Function *> kernelsOf(Module &M)
{
	std::set<Function *> annotated = annotatedKernels(M);
	std::vector<Function *> out;
	for (Function &F : M)
		if (!F.isDeclaration() &&
		    (F.getCallingConv() == CallingConv::SPIR_KERNEL || annotated.count(&F)))
			out.push_back(&F);
	return out;
}

// Defined functions that reach a grid built-in through calls (fixpoint).
std::set<Function *> functionsUsingGrid(Module &M)
{
	std::set<Function *> uses;
	bool grew = true;
	while (grew) {
		grew = false;
		for (Function &F : M) {
			if (F.isDeclaration() || uses.count(&F))
				continue;
			for (Instruction &I : instructions(F)) {
				auto *CB = dyn_cast<CallBase>(&I);
				Function *Callee = CB ? CB->getCalledFunction() : nullptr;
				if (Callee && (isGridBuiltin(Callee) || uses.count(Callee))) {
					uses.insert(&F);
					grew = true;
					break;
				}
			}
		}
	}
	return uses;
}

// Inlines calls to functions that reach grid built-ins. Returns a reason
// string when some cannot be inlined.
std::string inlineGridCallees(Function &K, const std::set<Function *> &gridUsers)
{
	for (int round = 0; round < 64; round++) {
		std::vector<CallBase *> calls;
		for (Instruction &I : instructions(K))
			if (auto *CB = dyn_cast<CallBase>(&I))
				if (gridUsers.count(CB->getCalledFunction()))
					calls.push_back(CB);
		if (calls.empty())
			return "";
		for (CallBase *CB : calls) {
			if (CB->getCalledFunction() == &K)
				return "recursive kernel";
			InlineFunctionInfo IFI;
			if (!InlineFunction(*CB, IFI).isSuccess())
				return "helper using grid built-ins cannot be inlined";
		}
	}
	return "helper call depth exceeds inlining limit";
}

// Returns why K cannot be rewritten, or "" when it can.
std::string unsupportedReason(Function &K)
{
	if (!K.use_empty())
		return "kernel is called or referenced from other code";
	if (K.isVarArg())
		return "variadic kernel";
	if (!K.getReturnType()->isVoidTy())
		return "kernel does not return void";
	for (Instruction &I : instructions(K)) {
		auto *CB = dyn_cast<CallBase>(&I);
		if (!CB)
			continue;
		Function *Callee = CB->getCalledFunction();
		if (!Callee) {
			if (!CB->isInlineAsm())
				return "indirect call";
			continue;
		}
		StringRef N = Callee->getName();
		if (N.startswith("__enqueue_kernel") || N.contains("get_default_queue"))
			return "device-side enqueue";
		if (isGridBuiltin(Callee) && !CB->getType()->isIntegerTy(N == kWorkDim ? 32 : 64))
			return "grid built-in with non-64-bit size_t";
	}
	return "";
}

unsigned instCount(const Function &F)
{
	unsigned n = 0;
	for (const Instruction &I : instructions(F))
		if (!isa<DbgInfoIntrinsic>(I))
			n++;
	return n;
}

FunctionCallee rtDecl(Module &M, StringRef Name, Type *Ret, ArrayRef<Type *> Params)
{
	FunctionCallee FC = M.getOrInsertFunction(Name, FunctionType::get(Ret, Params, false));
	if (auto *F = dyn_cast<Function>(FC.getCallee()))
		if (!isNvptx(M))
			F->setCallingConv(CallingConv::SPIR_FUNC);
	return FC;
}

CallInst *callRt(IRBuilder<> &B, FunctionCallee FC, ArrayRef<Value *> Args)
{
	CallInst *CI = B.CreateCall(FC, Args);
	if (auto *F = dyn_cast<Function>(FC.getCallee()))
		CI->setCallingConv(F->getCallingConv());
	return CI;
}

// A runtime argument appended to a kernel: its IR name and kernel_arg_* metadata. addrSpace 1
// is the record (a global pointer); byValue is the direct kernel's grid (accelos/vndrange.h),
// a struct passed by value as clang passes one: a private pointer with the byval attribute.
struct RuntimeArg {
	unsigned addrSpace;
	const char *type;
	const char *name;
	bool byValue;
};

const RuntimeArg kRecordArg = {1, "struct aos_vndrange*", "aos_vndrange", false};
const RuntimeArg kGridArg = {0, "struct aos_direct_grid", "aos_grid", true};
const RuntimeArg kCutArg = {1, "struct aos_cut*", "aos_cut", false};

// struct aos_direct_grid: three ulong[3], a uint[3] and a uint.
StructType *directGridType(LLVMContext &C)
{
	if (StructType *T = StructType::getTypeByName(C, "struct.aos_direct_grid"))
		return T;
	Type *I64x3 = ArrayType::get(Type::getInt64Ty(C), 3);
	Type *I32 = Type::getInt32Ty(C);
	return StructType::create(C, {I64x3, I64x3, I64x3, ArrayType::get(I32, 3), I32}, "struct.aos_direct_grid");
}

Type *runtimeArgType(LLVMContext &C, const RuntimeArg &A)
{
	if (A.byValue)
		return directGridType(C)->getPointerTo(0);
	return Type::getInt8Ty(C)->getPointerTo(A.addrSpace);
}

// Copies From's metadata to To, appending one kernel_arg_* entry per extra argument.
void copyKernelMetadata(Function &From, Function &To, ArrayRef<RuntimeArg> Extra)
{
	LLVMContext &C = From.getContext();
	SmallVector<std::pair<unsigned, MDNode *>, 8> MDs;
	From.getAllMetadata(MDs);
	for (auto &KV : MDs) {
		StringRef Kind;
		SmallVector<StringRef, 8> names;
		C.getMDKindNames(names);
		Kind = names[KV.first];
		MDNode *N = KV.second;
		if (!Kind.startswith("kernel_arg_")) {
			To.setMetadata(KV.first, N);
			continue;
		}
		SmallVector<Metadata *, 8> ops(N->op_begin(), N->op_end());
		for (const RuntimeArg &A : Extra) {
			if (Kind == "kernel_arg_addr_space")
				ops.push_back(ConstantAsMetadata::get(
					ConstantInt::get(Type::getInt32Ty(C), A.addrSpace)));
			else if (Kind == "kernel_arg_access_qual")
				ops.push_back(MDString::get(C, "none"));
			else if (Kind == "kernel_arg_type" || Kind == "kernel_arg_base_type")
				ops.push_back(MDString::get(C, A.type));
			else if (Kind == "kernel_arg_name")
				ops.push_back(MDString::get(C, A.name));
			else
				ops.push_back(MDString::get(C, ""));
		}
		To.setMetadata(KV.first, MDNode::get(C, ops));
	}
}

// NVPTX marks a kernel by an nvvm.annotations entry naming it. Each entry of From is moved to To
// (Keep false: To replaces From) or copied for it (Keep true: both are kernels).
void annotateLike(Module &M, Function &From, Function &To, bool Keep)
{
	NamedMDNode *NA = M.getNamedMetadata("nvvm.annotations");
	if (!NA)
		return;
	for (unsigned i = 0, n = NA->getNumOperands(); i < n; i++) {
		MDNode *N = NA->getOperand(i);
		auto *VM = dyn_cast_or_null<ValueAsMetadata>(N->getOperand(0).get());
		if (!VM || VM->getValue() != &From)
			continue;
		SmallVector<Metadata *, 4> ops(N->op_begin(), N->op_end());
		ops[0] = ValueAsMetadata::get(&To);
		if (Keep)
			NA->addOperand(MDNode::get(M.getContext(), ops));
		else
			NA->setOperand(i, MDNode::get(M.getContext(), ops));
	}
}

void recordResult(Module &M, StringRef Name, bool Rewritten, unsigned Chunk, unsigned Insts,
		  StringRef Reason)
{
	LLVMContext &C = M.getContext();
	Type *I32 = Type::getInt32Ty(C);
	Metadata *ops[] = {
		MDString::get(C, Name),
		ConstantAsMetadata::get(ConstantInt::get(I32, Rewritten)),
		ConstantAsMetadata::get(ConstantInt::get(I32, Chunk)),
		ConstantAsMetadata::get(ConstantInt::get(I32, Insts)),
		MDString::get(C, Reason),
	};
	M.getOrInsertNamedMetadata(AOS_PASSES_RESULT_MD)->addOperand(MDNode::get(C, ops));
}

// The new functions read the record and context and run a loop; the
// original kernel's memory-effect attributes no longer describe them.
void dropMemoryAttrs(Function &F)
{
	for (Attribute::AttrKind A : {Attribute::ReadNone, Attribute::ReadOnly, Attribute::WriteOnly,
				      Attribute::ArgMemOnly, Attribute::InaccessibleMemOnly,
				      Attribute::InaccessibleMemOrArgMemOnly, Attribute::Speculatable,
				      Attribute::NoSync})
		F.removeFnAttr(A);
}

// Clones K into a regular function taking the private scheduling context.
Function *makeBody(Function &K, Type *CtxTy)
{
	Module &M = *K.getParent();
	SmallVector<Type *, 8> params(K.getFunctionType()->param_begin(),
				      K.getFunctionType()->param_end());
	params.push_back(CtxTy);
	auto *FT = FunctionType::get(K.getReturnType(), params, false);
	Function *Body = Function::Create(FT, GlobalValue::InternalLinkage,
					  K.getName() + ".aos.body", &M);
	ValueToValueMapTy VM;
	auto DestArg = Body->arg_begin();
	for (Argument &A : K.args()) {
		DestArg->setName(A.getName());
		VM[&A] = &*DestArg++;
	}
	SmallVector<ReturnInst *, 4> Returns;
	CloneFunctionInto(Body, &K, VM, CloneFunctionChangeType::LocalChangesOnly, Returns);
	Body->setCallingConv(isNvptx(M) ? CallingConv::C : CallingConv::SPIR_FUNC);
	SmallVector<std::pair<unsigned, MDNode *>, 8> MDs;
	Body->getAllMetadata(MDs);
	for (auto &KV : MDs)
		if (KV.first != LLVMContext::MD_dbg)
			Body->setMetadata(KV.first, nullptr);
	Body->removeFnAttr(Attribute::NoInline);
	Body->removeFnAttr(Attribute::OptimizeNone);
	Body->removeFnAttr("uniform-work-group-size");
	Body->addFnAttr(Attribute::AlwaysInline);
	dropMemoryAttrs(*Body);
	return Body;
}

// The built-in call behind V with dimension Dim, if V is a call of Name with a constant one.
bool isBuiltinCall(Value *V, StringRef Name, uint64_t &Dim)
{
	auto *CB = dyn_cast<CallBase>(V);
	Function *F = CB ? CB->getCalledFunction() : nullptr;
	if (!F || F->getName() != Name || CB->arg_size() != 1)
		return false;
	auto *C = dyn_cast<ConstantInt>(CB->getArgOperand(0));
	if (!C)
		return false;
	Dim = C->getZExtValue();
	return true;
}

// get_global_id(d) - get_global_offset(d) is the id within the range: the virtual group times
// the local size plus the local id. Said so, it needs no offset; natively the device's offset
// cancels there, while the rewrite's offset (the record's in the direct shape) would not, and
// every work-item would subtract it.
void replaceIdLessOffset(Function &Body, Argument *Ctx)
{
	Module &M = *Body.getParent();
	Type *I64 = Type::getInt64Ty(M.getContext());
	Type *I32 = Type::getInt32Ty(M.getContext());
	std::vector<BinaryOperator *> subs;
	for (Instruction &I : instructions(Body)) {
		auto *BO = dyn_cast<BinaryOperator>(&I);
		uint64_t a, b;
		if (BO && BO->getOpcode() == Instruction::Sub && BO->getType() == I64 &&
		    isBuiltinCall(BO->getOperand(0), "_Z13get_global_idj", a) &&
		    isBuiltinCall(BO->getOperand(1), "_Z17get_global_offsetj", b) && a == b)
			subs.push_back(BO);
	}
	for (BinaryOperator *BO : subs) {
		IRBuilder<> B(BO);
		Value *Dim = B.CreateZExtOrTrunc(cast<CallBase>(BO->getOperand(0))->getArgOperand(0), I32);
		CallInst *New = callRt(B, rtDecl(M, "aos_rt_global_id_in_range", I64, {Ctx->getType(), I32}),
				       {Ctx, Dim});
		BO->replaceAllUsesWith(New);
		BO->eraseFromParent();
	}
}

void replaceGridBuiltins(Function &Body)
{
	Module &M = *Body.getParent();
	Argument *Ctx = Body.getArg(Body.arg_size() - 1);
	Type *I32 = Type::getInt32Ty(M.getContext());
	replaceIdLessOffset(Body, Ctx);
	std::vector<CallBase *> calls;
	for (Instruction &I : instructions(Body))
		if (auto *CB = dyn_cast<CallBase>(&I))
			if (isGridBuiltin(CB->getCalledFunction()))
				calls.push_back(CB);
	for (CallBase *CB : calls) {
		const std::string &rt = gridBuiltins(M).at(CB->getCalledFunction()->getName().str());
		IRBuilder<> B(CB);
		CallInst *New;
		Type *Ret = CB->getType(); /* size_t (checked), or uint for get_work_dim */
		if (CB->arg_size() == 0) {
			New = callRt(B, rtDecl(M, rt, Ret, {Ctx->getType()}), {Ctx});
		} else {
			Value *Dim = B.CreateZExtOrTrunc(CB->getArgOperand(0), I32);
			New = callRt(B, rtDecl(M, rt, Ret, {Ctx->getType(), I32}), {Ctx, Dim});
		}
		CB->replaceAllUsesWith(New);
		CB->eraseFromParent();
	}
}

// A new kernel named Name with K's arguments, attributes and metadata plus the Extra runtime
// arguments, marked rewritten with Chunk; its body is left empty.
Function *makeKernelShell(Function &K, const Twine &Name, ArrayRef<RuntimeArg> Extra, unsigned Chunk)
{
	Module &M = *K.getParent();
	LLVMContext &C = M.getContext();
	SmallVector<Type *, 8> params(K.getFunctionType()->param_begin(),
				      K.getFunctionType()->param_end());
	for (const RuntimeArg &A : Extra)
		params.push_back(runtimeArgType(C, A));
	auto *FT = FunctionType::get(K.getReturnType(), params, false);
	Function *F = Function::Create(FT, K.getLinkage(), Name, &M);
	F->copyAttributesFrom(&K);
	dropMemoryAttrs(*F);
	copyKernelMetadata(K, *F, Extra);
	F->setMetadata(kRewrittenMD, MDNode::get(C, {ConstantAsMetadata::get(
						       ConstantInt::get(Type::getInt32Ty(C), Chunk))}));
	unsigned i = 0;
	for (Argument &A : K.args())
		F->getArg(i++)->setName(A.getName());
	for (const RuntimeArg &A : Extra) {
		if (A.byValue) {
			F->addParamAttr(i, Attribute::getWithByValType(C, directGridType(C)));
			F->addParamAttr(i, Attribute::getWithAlignment(C, Align(8)));
			F->addParamAttr(i, Attribute::NoUndef);
		}
		F->getArg(i++)->setName(A.name);
	}
	return F;
}

// The private scheduling context (AOS_RT_WG_WORDS words, layout: rtlib), as CtxTy.
Value *allocContext(IRBuilder<> &B, Type *CtxTy)
{
	const DataLayout &DL = B.GetInsertBlock()->getModule()->getDataLayout();
	auto *WordsTy = ArrayType::get(B.getInt64Ty(), AOS_RT_WG_WORDS);
	AllocaInst *CtxMem = B.CreateAlloca(WordsTy, DL.getAllocaAddrSpace(), nullptr, "aos.ctx");
	CtxMem->setAlignment(Align(8));
	return B.CreatePointerCast(CtxMem, CtxTy);
}

// Calls Body with Kernel's application arguments (its first NumArgs) and the context.
CallInst *callBody(IRBuilder<> &B, Function &Body, Function &Kernel, unsigned NumArgs, Value *Ctx)
{
	SmallVector<Value *, 8> args;
	for (unsigned a = 0; a < NumArgs; a++)
		args.push_back(Kernel.getArg(a));
	args.push_back(Ctx);
	CallInst *Call = B.CreateCall(&Body, args);
	Call->setCallingConv(Body.getCallingConv());
	return Call;
}

// Builds the scheduling kernel that replaces K; returns it (K still exists).
Function *makeSchedulingKernel(Function &K, Function &Body, unsigned Chunk)
{
	Module &M = *K.getParent();
	LLVMContext &C = M.getContext();
	Type *I32 = Type::getInt32Ty(C);
	Type *RecTy = runtimeArgType(C, kRecordArg);
	Type *LocalTy = Type::getInt8Ty(C)->getPointerTo(3);
	Type *CtxTy = Body.getFunctionType()->params().back();

	Function *S = makeKernelShell(K, K.getName() + ".aos.sched", {kRecordArg}, Chunk);
	Argument *Rec = S->getArg(K.arg_size());

	// Two dequeue slots in local memory (layout: rtlib). PoCL recognises
	// kernel-scope local variables by the "<kernel>." name prefix.
	auto *SlotsTy = ArrayType::get(I32, 2 * AOS_RT_SLOT_WORDS);
	auto *Slots = new GlobalVariable(M, SlotsTy, false, GlobalValue::InternalLinkage,
					 UndefValue::get(SlotsTy), K.getName() + ".aos_slots", nullptr,
					 GlobalValue::NotThreadLocal, 3);
	Slots->setAlignment(Align(4));

	FunctionCallee Init = rtDecl(M, "aos_rt_init", Type::getVoidTy(C), {RecTy, CtxTy});
	FunctionCallee Deq = rtDecl(M, "aos_rt_dequeue", I32, {RecTy, LocalTy, CtxTy, I32});
	FunctionCallee Enter = rtDecl(M, "aos_rt_enter", Type::getVoidTy(C), {CtxTy, I32});

	BasicBlock *Entry = BasicBlock::Create(C, "entry", S);
	BasicBlock *Loop = BasicBlock::Create(C, "aos.dequeue", S);
	BasicBlock *Run = BasicBlock::Create(C, "aos.run", S);
	BasicBlock *Exit = BasicBlock::Create(C, "aos.exit", S);

	IRBuilder<> B(Entry);
	Value *Ctx = allocContext(B, CtxTy);
	callRt(B, Init, {Rec, Ctx});
	B.CreateBr(Loop);

	B.SetInsertPoint(Loop);
	Value *SlotPtr = B.CreatePointerCast(Slots, LocalTy);
	Value *Count = callRt(B, Deq, {Rec, SlotPtr, Ctx, ConstantInt::get(I32, Chunk)});
	B.CreateCondBr(B.CreateICmpEQ(Count, ConstantInt::get(I32, 0)), Exit, Run);

	B.SetInsertPoint(Run);
	PHINode *Idx = B.CreatePHI(I32, 2, "aos.idx");
	Idx->addIncoming(ConstantInt::get(I32, 0), Loop);
	callRt(B, Enter, {Ctx, Idx});
	CallInst *Call = callBody(B, Body, *S, K.arg_size(), Ctx);
	Value *NextIdx = B.CreateAdd(Idx, ConstantInt::get(I32, 1));
	Idx->addIncoming(NextIdx, Run);
	B.CreateCondBr(B.CreateICmpULT(NextIdx, Count), Run, Loop);

	B.SetInsertPoint(Exit);
	B.CreateRetVoid();

	InlineFunctionInfo IFI;
	InlineFunction(*Call, IFI);
	return S;
}

bool usedIn(const Value *V, const Function &F)
{
	for (const User *U : V->users()) {
		if (auto *I = dyn_cast<Instruction>(U)) {
			if (I->getFunction() == &F)
				return true;
		} else if (isa<Constant>(U) && usedIn(U, F)) {
			return true;
		}
	}
	return false;
}

// Clones Body with every kernel-scope local variable it uses renamed to Kernel's prefix: PoCL
// assigns such variables to the kernel whose name precedes the first '.'.
Function *cloneBodyFor(Function &Body, StringRef Kernel)
{
	Module &M = *Body.getParent();
	ValueToValueMapTy VM;
	for (GlobalVariable &G : M.globals()) {
		if (G.getAddressSpace() != 3 || !G.hasLocalLinkage() || !usedIn(&G, Body))
			continue;
		StringRef suffix = G.getName().contains('.') ? G.getName().split('.').second : G.getName();
		auto *Copy = new GlobalVariable(M, G.getValueType(), G.isConstant(), G.getLinkage(),
						G.hasInitializer() ? G.getInitializer() : nullptr,
						Kernel + "." + suffix, nullptr, G.getThreadLocalMode(), 3);
		Copy->copyAttributesFrom(&G);
		VM[&G] = Copy;
	}
	return CloneFunction(&Body, VM);
}

// Builds the direct kernel of K (accelos/vndrange.h) from Body, or returns nullptr when its name
// is taken.
Function *makeDirectKernel(Function &K, Function &Body, unsigned Chunk, bool Cut)
{
	Module &M = *K.getParent();
	LLVMContext &C = M.getContext();
	std::string name = std::string(Cut ? AOS_CUT_KERNEL_PREFIX : AOS_DIRECT_KERNEL_PREFIX) + K.getName().str();
	if (M.getNamedValue(name))
		return nullptr;
	Type *CtxTy = Body.getFunctionType()->params().back();

	SmallVector<RuntimeArg, 2> extra = {kGridArg};
	if (Cut)
		extra.push_back(kCutArg);
	Function *D = makeKernelShell(K, name, extra, Chunk);
	unsigned nargs = K.arg_size();
	D->addParamAttr(nargs, Attribute::NoCapture);
	D->addParamAttr(nargs, Attribute::ReadOnly);

	Function *DBody = cloneBodyFor(Body, name);
	Type *VoidPtrTy = Type::getInt8Ty(C)->getPointerTo(0);
	FunctionCallee Init = rtDecl(M, "aos_rt_direct_init", Type::getVoidTy(C), {VoidPtrTy, CtxTy});
	IRBuilder<> B(BasicBlock::Create(C, "entry", D));
	Value *Ctx = allocContext(B, CtxTy);
	if (Cut) { // a group claimed after the wave's cut returns at once (accelos/vndrange.h)
		Type *CutTy = runtimeArgType(C, kCutArg);
		FunctionCallee Claim = rtDecl(M, "aos_rt_cut_claim", Type::getInt32Ty(C), {CutTy});
		Value *Run = callRt(B, Claim, {D->getArg(nargs + 1)});
		BasicBlock *Go = BasicBlock::Create(C, "aos.claimed", D);
		BasicBlock *Skip = BasicBlock::Create(C, "aos.cut", D);
		B.CreateCondBr(B.CreateICmpNE(Run, B.getInt32(0)), Go, Skip);
		IRBuilder<>(Skip).CreateRetVoid();
		B.SetInsertPoint(Go);
	}
	Value *Grid = B.CreatePointerCast(D->getArg(nargs), VoidPtrTy);
	callRt(B, Init, {Grid, Ctx});
	CallInst *Call = callBody(B, *DBody, *D, nargs, Ctx);
	B.CreateRetVoid();
	InlineFunctionInfo IFI;
	InlineFunction(*Call, IFI);
	DBody->eraseFromParent();
	annotateLike(M, K, *D, true);
	return D;
}

// PoCL 3.1 workaround. Its work-group function generation loses stores made
// in a conditional region that is followed directly by a loop starting with a
// barrier, when all of it sits inside another loop -- exactly the shape the
// scheduling loop creates around such kernels (native PoCL gets a hand-written
// kernel of that shape wrong too). An extra barrier in the preheader of every
// loop that contains a barrier avoids it. It cannot change results: all
// work-items reach a loop that contains a barrier, hence its preheader.
void guardBarrierLoops(Function &S)
{
	Module &M = *S.getParent();
	Function *Barrier = M.getFunction("_Z7barrierj");
	if (!Barrier || !isSpirModule(M))
		return;
	DominatorTree DT(S);
	LoopInfo LI(DT);
	std::vector<BasicBlock *> preheaders;
	for (Loop *L : LI.getLoopsInPreorder()) {
		BasicBlock *PH = L->getLoopPreheader();
		if (PH && loopCallsAny(*L, isBarrierFunction))
			preheaders.push_back(PH);
	}
	Type *I32 = Type::getInt32Ty(M.getContext());
	for (BasicBlock *PH : preheaders) {
		CallInst *C = CallInst::Create(Barrier->getFunctionType(), Barrier,
					       {ConstantInt::get(I32, 1)}, "", PH->getTerminator());
		C->setCallingConv(Barrier->getCallingConv());
		C->addFnAttr(Attribute::Convergent);
		C->addFnAttr(Attribute::NoUnwind);
	}
}

} // namespace

bool isBarrierFunction(const Function *F)
{
	if (!F)
		return false;
	StringRef N = F->getName();
	return N == "_Z7barrierj" || N.startswith("_Z18work_group_barrierj");
}

bool isSpirModule(const Module &M)
{
	return StringRef(M.getTargetTriple()).startswith("spir");
}

bool rewriteKernels(Module &M, bool Direct)
{
	bool changed = false;
	std::vector<Function *> kernels = kernelsOf(M);
	std::set<Function *> gridUsers = functionsUsingGrid(M);
	for (Function *K : kernels)
		gridUsers.insert(K); // a kernel called from a kernel is inlined too

	std::set<std::string> recorded; // kernels a previous run already judged
	if (NamedMDNode *R = M.getNamedMetadata(AOS_PASSES_RESULT_MD))
		for (MDNode *N : R->operands())
			if (auto *S = dyn_cast<MDString>(N->getOperand(0)))
				recorded.insert(S->getString().str());

	std::vector<Function *> todo;
	for (Function *K : kernels) {
		if (K->getMetadata(kRewrittenMD) || recorded.count(K->getName().str()))
			continue;
		changed = true;
		std::string reason = unsupportedReason(*K);
		if (reason.empty())
			reason = inlineGridCallees(*K, gridUsers);
		if (reason.empty())
			reason = unsupportedReason(*K); // calls reached through helpers
		if (!reason.empty()) {
			recordResult(M, K->getName(), false, 0, instCount(*K), reason);
			continue;
		}
		todo.push_back(K);
	}
	for (Function *K : todo) {
		unsigned insts = instCount(*K);
		unsigned chunk = aos_chunk_for_inst_count(insts);
		Type *CtxTy = Type::getInt8Ty(M.getContext())
				      ->getPointerTo(M.getDataLayout().getAllocaAddrSpace());
		Function *Body = makeBody(*K, CtxTy);
		replaceGridBuiltins(*Body);
		Function *S = makeSchedulingKernel(*K, *Body, chunk);
		// The cuttable twin only beside a direct kernel, and only for SPIR (CPU devices): GPUs
		// stop loop waves through the record's `stop`.
		if (Direct && makeDirectKernel(*K, *Body, chunk, false) && isSpirModule(M))
			makeDirectKernel(*K, *Body, chunk, true);
		Body->eraseFromParent();
		guardBarrierLoops(*S);
		annotateLike(M, *K, *S, false);
		std::string name = K->getName().str();
		S->takeName(K);
		K->eraseFromParent();
		recordResult(M, name, true, chunk, insts, "");
	}
	return changed;
}

PreservedAnalyses KernelRewritePass::run(Module &M, ModuleAnalysisManager &)
{
	return rewriteKernels(M, Direct) ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

PreservedAnalyses RtlibInternalizePass::run(Module &M, ModuleAnalysisManager &)
{
	bool changed = false;
	for (Function &F : M) {
		if (F.isDeclaration() || !F.getName().startswith("aos_rt_"))
			continue;
		F.setLinkage(GlobalValue::InternalLinkage);
		F.removeFnAttr(Attribute::NoInline);
		F.addFnAttr(Attribute::AlwaysInline);
		changed = true;
	}
	return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace aos
