; The direct shape (docs/jit.md, "The direct shape"): next to
; the scheduling kernel k, a spir module gets aos_direct_k, with k's body and
; grid built-in replacement but no loop, dequeue, atomics or added barriers,
; taking k's arguments and the launch's grid by value (struct aos_direct_grid,
; not the record: direct_grid.ll). NVPTX gets it too, marked a kernel in
; nvvm.annotations as k is; a kernel whose direct name is taken (c) gets none.
; A spir module also gets aos_cut_k, the cuttable twin (CUT below); NVPTX not.
;
; From (clang-15 -x cl -cl-std=CL1.2 -target spir64 -O2 -fno-slp-vectorize
; -fno-vectorize -Xclang -finclude-default-header):
;   kernel void k(global int *out, global const int *in)
;   {
;   	local int t[16];
;   	size_t l = get_local_id(0);
;   	size_t g = get_global_id(0);
;   	t[l] = in[g];
;   	barrier(CLK_LOCAL_MEM_FENCE);
;   	out[g] = t[15 - l] + (int)get_group_id(0);
;   }
;   void aos_direct_c(global int *out) { out[0] = 7; }
;   kernel void c(global int *out) { out[get_global_id(0)] = 1; }
;
; RUN: %opt -load-pass-plugin=%plugin -passes=aos-rewrite -S %s -o %t.ll
; RUN: FileCheck %s --implicit-check-not=aos_base < %t.ll
; RUN: FileCheck %s --check-prefix=DNOT < %t.ll
; RUN: FileCheck %s --check-prefix=CUT < %t.ll
; RUN: sed -e 's/^target triple = "spir64"$/target triple = "nvptx64-nvidia-nvcl"/' \
; RUN:     -e 's/^target datalayout = .*$/target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"/' \
; RUN:     %s \
; RUN:   | %opt -load-pass-plugin=%plugin -passes=aos-rewrite -S - -o - \
; RUN:   | FileCheck %s --check-prefix=NV --implicit-check-not='spir_kernel void @aos_direct_c' --implicit-check-not=aos_cut_
; What the JIT runs after the rewrite (aos_passes_rewrite): rtlib linked (only
; what is needed), internalized, inlined, cleaned up. llvm-link-15 comes from
; PATH (same LLVM package as opt-15).
; RUN: %opt -load-pass-plugin=%plugin -passes=aos-rewrite %s -o - \
; RUN:   | llvm-link-15 - --only-needed %rtlib/aos_rt-spir64.bc -o - \
; RUN:   | %opt -load-pass-plugin=%plugin -S -o - \
; RUN:       -passes='aos-rtlib-internalize,always-inline,function(sroa,early-cse,instcombine,simplifycfg,sroa),globaldce' \
; RUN:   | FileCheck %s --check-prefix=LINKED
; RUN: sed -e 's/^target triple = "spir64"$/target triple = "nvptx64-nvidia-nvcl"/' \
; RUN:     -e 's/^target datalayout = .*$/target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"/' \
; RUN:     %s \
; RUN:   | %opt -opaque-pointers -load-pass-plugin=%plugin -passes=aos-rewrite - -o - \
; RUN:   | llvm-link-15 -opaque-pointers - --only-needed %rtlib/aos_rt-nvptx64-nvidia-nvcl.bc -o - \
; RUN:   | %opt -opaque-pointers -load-pass-plugin=%plugin -S -o - \
; RUN:       -passes='aos-rtlib-internalize,always-inline,function(sroa,early-cse,instcombine,simplifycfg,sroa),globaldce' \
; RUN:   | FileCheck %s --check-prefix=NVLINKED --implicit-check-not=get_global_offset --implicit-check-not=get_global_id
;
; The direct kernel has its own copy of the local array, under its name.
; CHECK: @k.t = internal unnamed_addr addrspace(3) global [16 x i32] undef
; CHECK: @k.aos_slots = internal addrspace(3) global [16 x i32] undef
; CHECK: @aos_direct_k.t = internal unnamed_addr addrspace(3) global [16 x i32] undef
;
; The function that takes c's direct name is left as it was.
; CHECK-LABEL: define dso_local spir_func void @aos_direct_c(i32 addrspace(1)* nocapture noundef writeonly %0)
; CHECK-NEXT: store i32 7, i32 addrspace(1)* %0
; CHECK-NEXT: ret void
;
; The scheduling kernel keeps k's name and its dequeue loop.
; CHECK-LABEL: define dso_local spir_kernel void @k(i32 addrspace(1)* {{[^,]*}}%0, i32 addrspace(1)* {{[^,]*}}%1, i8 addrspace(1)* %aos_vndrange) {{.*}}!accelos.rewritten
; CHECK: call spir_func void @aos_rt_init(i8 addrspace(1)* %aos_vndrange
; CHECK: aos.dequeue:
; CHECK: call spir_func i32 @aos_rt_dequeue(i8 addrspace(1)* %aos_vndrange, {{.*}}@k.aos_slots
; CHECK: aos.run:
; CHECK: @k.t
; CHECK: aos.exit:
;
; The direct kernel: k's arguments, the grid by value; k's body runs once for
; the virtual group aos_rt_direct_init picks, on its own copy of t.
; CHECK-LABEL: define dso_local spir_kernel void @aos_direct_k(
; CHECK-SAME: i32 addrspace(1)* nocapture noundef writeonly align 4 %0, i32 addrspace(1)* nocapture noundef readonly align 4 %1, %struct.aos_direct_grid* nocapture noundef readonly byval(%struct.aos_direct_grid) align 8 %aos_grid) {{.*}}!kernel_arg_addr_space ![[DAS:[0-9]+]] {{.*}}!kernel_arg_type ![[DTY:[0-9]+]] {{.*}}!accelos.rewritten ![[DRW:[0-9]+]] {
; CHECK-NEXT: entry:
; CHECK-NEXT: %aos.ctx = alloca [20 x i64]
; CHECK-NEXT: %[[CTX:[0-9]+]] = bitcast [20 x i64]* %aos.ctx to i8*
; CHECK-NEXT: %[[GRID:[0-9]+]] = bitcast %struct.aos_direct_grid* %aos_grid to i8*
; CHECK-NEXT: call spir_func void @aos_rt_direct_init(i8* %[[GRID]], i8* %[[CTX]])
; CHECK-NEXT: %[[LID:[0-9]+]] = call spir_func i64 @_Z12get_local_idj(i32 noundef 0)
; CHECK-NEXT: %[[GID:[0-9]+]] = call spir_func i64 @aos_rt_global_id(i8* %[[CTX]], i32 0)
; CHECK: getelementptr inbounds [16 x i32], [16 x i32] addrspace(3)* @aos_direct_k.t, i64 0, i64 %[[LID]]
; CHECK: call spir_func void @_Z7barrierj(i32 noundef 1)
; CHECK: getelementptr inbounds [16 x i32], [16 x i32] addrspace(3)* @aos_direct_k.t
; CHECK: call spir_func i64 @aos_rt_group_id(i8* %[[CTX]], i32 0)
; CHECK: getelementptr inbounds i32, i32 addrspace(1)* %0, i64 %[[GID]]
; CHECK: ret void
; CHECK-NEXT: }
; CHECK: declare spir_func void @aos_rt_direct_init(i8*, i8*)
;
; c is rewritten, but its direct name is taken: no aos_direct_c kernel (under
; any suffix) follows.
; CHECK-LABEL: define dso_local spir_kernel void @c(i32 addrspace(1)* {{[^,]*}}%0, i8 addrspace(1)* %aos_vndrange)
; CHECK: call spir_func i32 @aos_rt_dequeue(i8 addrspace(1)* %aos_vndrange, {{.*}}@c.aos_slots
; CHECK: ret void
; CHECK-NOT: define {{.*}}@aos_direct_c
; CHECK-DAG: !accelos.kernels = !{![[RK:[0-9]+]], ![[RC:[0-9]+]]}
; CHECK-DAG: ![[RK]] = !{!"k", i32 1, i32 [[CHUNK:[0-9]+]], i32 {{[0-9]+}}, !""}
; CHECK-DAG: ![[RC]] = !{!"c", i32 1, i32 {{[0-9]+}}, i32 {{[0-9]+}}, !""}
; CHECK-DAG: ![[DAS]] = !{i32 1, i32 1, i32 0}
; CHECK-DAG: ![[DTY]] = !{!"int*", !"int*", !"struct aos_direct_grid"}
; CHECK-DAG: ![[DRW]] = !{i32 [[CHUNK]]}
;
; Nothing of the loop in the direct kernel: one block, no dequeue or atomics,
; the original grid built-ins gone, the scheduling kernel's local data unused,
; and only k's own barrier.
; DNOT-LABEL: define dso_local spir_kernel void @aos_direct_k(
; DNOT-NEXT: entry:
; DNOT-NOT: {{^ *br }}
; DNOT-NOT: {{^[a-z0-9_.]+:}}
; DNOT-NOT: aos_rt_dequeue
; DNOT-NOT: aos_rt_init
; DNOT-NOT: aos_rt_enter
; DNOT-NOT: atomic
; DNOT-NOT: cmpxchg
; DNOT-NOT: @_Z13get_global_idj
; DNOT-NOT: @_Z12get_group_idj
; DNOT-NOT: @k.t
; DNOT-NOT: @k.aos_slots
; DNOT-NOT: @_Z7barrierj
; DNOT: call spir_func void @_Z7barrierj(i32 noundef 1)
; DNOT-NOT: {{^ *br }}
; DNOT-NOT: {{^[a-z0-9_.]+:}}
; DNOT-NOT: aos_rt_dequeue
; DNOT-NOT: aos_rt_init
; DNOT-NOT: aos_rt_enter
; DNOT-NOT: atomic
; DNOT-NOT: cmpxchg
; DNOT-NOT: @_Z13get_global_idj
; DNOT-NOT: @_Z12get_group_idj
; DNOT-NOT: @k.t
; DNOT-NOT: @k.aos_slots
; DNOT-NOT: @_Z7barrierj
; DNOT: ret void
; DNOT-NEXT: }
;
; The cuttable twin (spir only): the direct kernel behind a claim on the cut
; record, its own copy of t; a group the claim refuses returns before anything.
; c, whose direct name is taken, gets none either.
; CUT-LABEL: define dso_local spir_kernel void @aos_cut_k(
; CUT-SAME: %struct.aos_direct_grid* nocapture noundef readonly byval(%struct.aos_direct_grid) align 8 %aos_grid, i8 addrspace(1)* %aos_cut)
; CUT-NEXT: entry:
; CUT-NEXT: %aos.ctx = alloca [20 x i64]
; CUT-NEXT: %[[CTX:[0-9]+]] = bitcast [20 x i64]* %aos.ctx to i8*
; CUT-NEXT: %[[CLAIM:[0-9]+]] = call spir_func i32 @aos_rt_cut_claim(i8 addrspace(1)* %aos_cut)
; CUT-NEXT: %[[GO:[0-9]+]] = icmp ne i32 %[[CLAIM]], 0
; CUT-NEXT: br i1 %[[GO]], label %aos.claimed, label %aos.cut
; CUT: aos.claimed:
; CUT-NEXT: bitcast %struct.aos_direct_grid* %aos_grid to i8*
; CUT-NEXT: call spir_func void @aos_rt_direct_init(
; CUT: @aos_cut_k.t
; CUT: call spir_func void @_Z7barrierj(i32 noundef 1)
; CUT: aos.cut:
; CUT-NEXT: ret void
; CUT-NOT: define {{.*}}@aos_cut_c
;
; NVPTX: the loop and the direct kernel (their nvvm.annotations:
; nvptx_annotations.ll).
; NV: target triple = "nvptx64-nvidia-nvcl"
; NV: @aos_direct_k.t = internal unnamed_addr addrspace(3) global [16 x i32] undef
; NV: define dso_local spir_kernel void @k(i32 addrspace(1)* {{[^,]*}}%0, i32 addrspace(1)* {{[^,]*}}%1, i8 addrspace(1)* %aos_vndrange)
; NV: call i32 @aos_rt_dequeue(i8 addrspace(1)* %aos_vndrange, {{.*}}@k.aos_slots
; NV: ret void
; NV: define dso_local spir_kernel void @aos_direct_k({{.*}}byval(%struct.aos_direct_grid) align 8 %aos_grid)
; NV: call void @aos_rt_direct_init(
; NV: ret void
; NV: define dso_local spir_kernel void @c(
; NV: call i32 @aos_rt_dequeue(
;
; Linked as the JIT does: the scheduling kernel holds rtlib's dequeue atomics,
; the direct kernel stays one block with none of them and one barrier. A
; direct wave runs a box of the original range with its global offset moved
; by the box's origin (aos_vndrange_box), which the grid argument also gives
; in groups: the virtual group is the physical one plus that origin (no
; division), and the global id is the device's own. A wave at global offset 0
; starts at the first group, so the origin is taken only at another offset:
; PoCL's own build for offset 0 then folds its load away.
; LINKED-LABEL: define dso_local spir_kernel void @k(
; LINKED: call spir_func i32 @_Z10atomic_addPU3AS1Vjj(
; LINKED-LABEL: define dso_local spir_kernel void @aos_direct_k(
; LINKED-NEXT: entry:
; LINKED-NOT: {{^[a-z0-9_.]+:}}
; LINKED-NOT: atomic
; LINKED-NOT: aos_rt_
; LINKED-NOT: @_Z7barrierj
; LINKED-DAG: %[[OP:[0-9]+]] = getelementptr inbounds %struct.aos_direct_grid, %struct.aos_direct_grid* %aos_grid, i64 0, i32 3, i64 0
; LINKED-DAG: %[[OLOAD:[0-9]+]] = load i32, i32* %[[OP]]
; LINKED-DAG: %[[GOFF:[0-9]+]] = call spir_func i64 @_Z17get_global_offsetj(i32 noundef 0)
; LINKED-DAG: %[[AT0:[0-9]+]] = icmp eq i64 %[[GOFF]], 0
; LINKED-DAG: %[[ORIGIN:[0-9]+]] = select i1 %[[AT0]], i32 0, i32 %[[OLOAD]]
; LINKED-DAG: %[[PG:[0-9]+]] = call spir_func i64 @_Z12get_group_idj(i32 noundef 0)
; LINKED-DAG: %[[GID:[0-9]+]] = call spir_func i64 @_Z13get_global_idj(i32 noundef 0)
; LINKED: getelementptr inbounds i32, i32 addrspace(1)* %1, i64 %[[GID]]
; LINKED-NOT: {{^[a-z0-9_.]+:}}
; LINKED-NOT: atomic
; LINKED-NOT: aos_rt_
; LINKED-NOT: @_Z7barrierj
; LINKED: call spir_func void @_Z7barrierj(i32 noundef 1)
; LINKED-NOT: {{^[a-z0-9_.]+:}}
; LINKED-NOT: atomic
; LINKED-NOT: aos_rt_
; LINKED-NOT: @_Z7barrierj
; LINKED: %[[PG32:[0-9]+]] = trunc i64 %[[PG]] to i32
; LINKED-NEXT: %[[VG:[0-9]+]] = add i32 %[[ORIGIN]], %[[PG32]]
; LINKED-NOT: udiv
; LINKED-NOT: get_global_offset
; LINKED: add nsw i32 %{{[0-9]+}}, %[[VG]]
; LINKED-NEXT: getelementptr inbounds i32, i32 addrspace(1)* %0, i64 %[[GID]]
; LINKED: ret void
; LINKED-NEXT: }
;
; On NVPTX, libclc's ids ignore a launch's global offset, so a direct wave's
; global id is (origin + group id) x local size + local id + the range's
; offset, from the grid, and nothing reads the device's global id or offset.
; NVLINKED-LABEL: define dso_local spir_kernel void @aos_direct_k(
; NVLINKED-DAG: %[[OFFP:[0-9]+]] = getelementptr inbounds %struct.aos_direct_grid, ptr %aos_grid, i64 0, i32 1, i64 0
; NVLINKED-DAG: %[[OFF:[0-9]+]] = load i64, ptr %[[OFFP]]
; NVLINKED-DAG: %[[OP:[0-9]+]] = getelementptr inbounds %struct.aos_direct_grid, ptr %aos_grid, i64 0, i32 3, i64 0
; NVLINKED-DAG: %[[O32:[0-9]+]] = load i32, ptr %[[OP]]
; NVLINKED-DAG: %[[O:[0-9]+]] = zext i32 %[[O32]] to i64
; NVLINKED-DAG: %[[PG:[0-9]+]] = call i64 @_Z12get_group_idj(i32 noundef 0)
; NVLINKED-DAG: %[[VG:[0-9]+]] = add i64 %[[PG]], %[[O]]
; NVLINKED: %[[ITEMS:[0-9]+]] = mul i64 %[[VG]], %{{[0-9]+}}
; NVLINKED: %[[ID:[0-9]+]] = add i64 %[[ITEMS]], %{{[0-9]+}}
; NVLINKED-NEXT: %[[GID:[0-9]+]] = add i64 %[[ID]], %[[OFF]]
; NVLINKED-NEXT: getelementptr inbounds i32, ptr addrspace(1) %1, i64 %[[GID]]
; NVLINKED: ret void
source_filename = "k.cl"
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64"

@k.t = internal unnamed_addr addrspace(3) global [16 x i32] undef, align 4

; Function Attrs: convergent norecurse nounwind
define dso_local spir_kernel void @k(i32 addrspace(1)* nocapture noundef writeonly align 4 %0, i32 addrspace(1)* nocapture noundef readonly align 4 %1) local_unnamed_addr #0 !kernel_arg_addr_space !4 !kernel_arg_access_qual !5 !kernel_arg_type !6 !kernel_arg_base_type !6 !kernel_arg_type_qual !7 {
  %3 = tail call spir_func i64 @_Z12get_local_idj(i32 noundef 0) #5
  %4 = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #5
  %5 = getelementptr inbounds i32, i32 addrspace(1)* %1, i64 %4
  %6 = load i32, i32 addrspace(1)* %5, align 4, !tbaa !8
  %7 = getelementptr inbounds [16 x i32], [16 x i32] addrspace(3)* @k.t, i64 0, i64 %3
  store i32 %6, i32 addrspace(3)* %7, align 4, !tbaa !8
  tail call spir_func void @_Z7barrierj(i32 noundef 1) #6
  %8 = sub i64 15, %3
  %9 = getelementptr inbounds [16 x i32], [16 x i32] addrspace(3)* @k.t, i64 0, i64 %8
  %10 = load i32, i32 addrspace(3)* %9, align 4, !tbaa !8
  %11 = tail call spir_func i64 @_Z12get_group_idj(i32 noundef 0) #5
  %12 = trunc i64 %11 to i32
  %13 = add nsw i32 %10, %12
  %14 = getelementptr inbounds i32, i32 addrspace(1)* %0, i64 %4
  store i32 %13, i32 addrspace(1)* %14, align 4, !tbaa !8
  ret void
}

; Function Attrs: convergent mustprogress nofree nounwind readnone willreturn
declare dso_local spir_func i64 @_Z12get_local_idj(i32 noundef) local_unnamed_addr #1

; Function Attrs: convergent mustprogress nofree nounwind readnone willreturn
declare dso_local spir_func i64 @_Z13get_global_idj(i32 noundef) local_unnamed_addr #1

; Function Attrs: convergent
declare dso_local spir_func void @_Z7barrierj(i32 noundef) local_unnamed_addr #2

; Function Attrs: convergent mustprogress nofree nounwind readnone willreturn
declare dso_local spir_func i64 @_Z12get_group_idj(i32 noundef) local_unnamed_addr #1

; Function Attrs: argmemonly mustprogress nofree norecurse nosync nounwind willreturn writeonly
define dso_local spir_func void @aos_direct_c(i32 addrspace(1)* nocapture noundef writeonly %0) local_unnamed_addr #3 {
  store i32 7, i32 addrspace(1)* %0, align 4, !tbaa !8
  ret void
}

; Function Attrs: argmemonly convergent mustprogress nofree norecurse nounwind willreturn writeonly
define dso_local spir_kernel void @c(i32 addrspace(1)* nocapture noundef writeonly align 4 %0) local_unnamed_addr #4 !kernel_arg_addr_space !12 !kernel_arg_access_qual !13 !kernel_arg_type !14 !kernel_arg_base_type !14 !kernel_arg_type_qual !15 {
  %2 = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #5
  %3 = getelementptr inbounds i32, i32 addrspace(1)* %0, i64 %2
  store i32 1, i32 addrspace(1)* %3, align 4, !tbaa !8
  ret void
}

attributes #0 = { convergent norecurse nounwind "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #1 = { convergent mustprogress nofree nounwind readnone willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #2 = { convergent "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #3 = { argmemonly mustprogress nofree norecurse nosync nounwind willreturn writeonly "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #4 = { argmemonly convergent mustprogress nofree norecurse nounwind willreturn writeonly "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #5 = { convergent nounwind readnone willreturn }
attributes #6 = { convergent nounwind }

!llvm.module.flags = !{!0, !1}
!opencl.ocl.version = !{!2}
!opencl.spir.version = !{!2}
!llvm.ident = !{!3}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 7, !"frame-pointer", i32 2}
!2 = !{i32 1, i32 2}
!3 = !{!"Debian clang version 15.0.6"}
!4 = !{i32 1, i32 1}
!5 = !{!"none", !"none"}
!6 = !{!"int*", !"int*"}
!7 = !{!"", !"const"}
!8 = !{!9, !9, i64 0}
!9 = !{!"int", !10, i64 0}
!10 = !{!"omnipotent char", !11, i64 0}
!11 = !{!"Simple C/C++ TBAA"}
!12 = !{i32 1}
!13 = !{!"none"}
!14 = !{!"int*"}
!15 = !{!""}
