/*
 * aos_jit_set_host_loop_align: the x86 code generator of this process (the one PoCL's CPU device
 * shares) starts innermost loops at the boundary asked for. Checked on the assembly LLVM emits
 * for a small loop, before and after.
 */
#include "accelos/jit.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>

static const char loop_ir[] =
	"target datalayout = \"e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128\"\n"
	"target triple = \"x86_64-unknown-linux-gnu\"\n"
	"define i32 @sum(i32* %p, i64 %n) {\n"
	"entry:\n"
	"  %empty = icmp eq i64 %n, 0\n"
	"  br i1 %empty, label %done, label %loop\n"
	"loop:\n"
	"  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]\n"
	"  %acc = phi i32 [ 0, %entry ], [ %acc.next, %loop ]\n"
	"  %q = getelementptr inbounds i32, i32* %p, i64 %i\n"
	"  %v = load i32, i32* %q\n"
	"  %x = mul i32 %v, %v\n"
	"  %acc.next = add i32 %acc, %x\n"
	"  %i.next = add nuw i64 %i, 1\n"
	"  %more = icmp ult i64 %i.next, %n\n"
	"  br i1 %more, label %loop, label %done\n"
	"done:\n"
	"  %r = phi i32 [ 0, %entry ], [ %acc.next, %loop ]\n"
	"  ret i32 %r\n"
	"}\n";

/* The x86 assembly of loop_ir, malloc'd. */
static char *loop_assembly(void)
{
	LLVMInitializeX86TargetInfo();
	LLVMInitializeX86Target();
	LLVMInitializeX86TargetMC();
	LLVMInitializeX86AsmPrinter();
	LLVMContextRef ctx = LLVMContextCreate();
	LLVMMemoryBufferRef ir = LLVMCreateMemoryBufferWithMemoryRangeCopy(loop_ir, sizeof(loop_ir) - 1, "loop");
	LLVMModuleRef m = NULL;
	char *msg = NULL;
	ck_assert_msg(LLVMParseIRInContext(ctx, ir, &m, &msg) == 0, "IR: %s", msg ? msg : "");
	LLVMTargetRef target;
	ck_assert_int_eq(LLVMGetTargetFromTriple("x86_64-unknown-linux-gnu", &target, &msg), 0);
	LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, "x86_64-unknown-linux-gnu", "x86-64", "",
							  LLVMCodeGenLevelDefault, LLVMRelocPIC, LLVMCodeModelDefault);
	LLVMMemoryBufferRef out = NULL;
	ck_assert_msg(LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMAssemblyFile, &msg, &out) == 0, "emit: %s",
		      msg ? msg : "");
	size_t n = LLVMGetBufferSize(out);
	char *text = malloc(n + 1);
	ck_assert_ptr_nonnull(text);
	memcpy(text, LLVMGetBufferStart(out), n);
	text[n] = '\0';
	LLVMDisposeMemoryBuffer(out);
	LLVMDisposeTargetMachine(tm);
	LLVMDisposeModule(m);
	LLVMContextDispose(ctx);
	return text;
}

/* The alignment (log2 bytes) of the block that starts the loop, or -1. */
static int loop_header_alignment(const char *text)
{
	int found = -1;
	for (const char *p = strstr(text, ".p2align"); p; p = strstr(p + 1, ".p2align")) {
		int log2 = atoi(p + strlen(".p2align"));
		const char *next_line = strchr(p, '\n');
		/* The loop's block is a local label (.LBB); the function's own alignment is not. */
		if (next_line && strncmp(next_line + 1, ".LBB", 4) == 0)
			found = log2;
	}
	return found;
}

START_TEST(llvm_default_then_32_bytes)
{
	char *before = loop_assembly();
	ck_assert_int_eq(loop_header_alignment(before), 4); /* LLVM's own: 16 bytes */
	free(before);

	ck_assert_int_eq(aos_jit_set_host_loop_align(AOS_JIT_HOST_LOOP_ALIGN_DEFAULT), 0);
	char *after = loop_assembly();
	ck_assert_int_eq(loop_header_alignment(after), 5);
	free(after);

	ck_assert_int_eq(aos_jit_set_host_loop_align(64), 0); /* may be set again */
	after = loop_assembly();
	ck_assert_int_eq(loop_header_alignment(after), 6);
	free(after);
}
END_TEST

START_TEST(zero_changes_nothing)
{
	ck_assert_int_eq(aos_jit_set_host_loop_align(0), 0);
	char *text = loop_assembly();
	ck_assert_int_eq(loop_header_alignment(text), 4);
	free(text);
}
END_TEST

START_TEST(bad_values_rejected)
{
	static const unsigned bad[] = { 1, 8, 24, 48, 256, 4096, 0x80000000u };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_int_eq(aos_jit_set_host_loop_align(bad[i]), -EINVAL);
	char *text = loop_assembly();
	ck_assert_int_eq(loop_header_alignment(text), 4);
	free(text);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("host_codegen");
	TCase *tc = tcase_create("loop_align");
	/* Each test in its own process: LLVM's options are process-wide. */
	tcase_add_test(tc, llvm_default_then_32_bytes);
	tcase_add_test(tc, zero_changes_nothing);
	tcase_add_test(tc, bad_values_rejected);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
