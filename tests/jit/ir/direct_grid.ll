; The direct kernel's grid (accelos/vndrange.h, struct aos_direct_grid): its
; last argument is the launch's geometry passed by value, as clang passes a
; struct (a private pointer with byval), not the record in device memory;
; PoCL loads a by-value argument once per work-group, while loads from a
; buffer stayed in its work-item loops (mat_2d_offset ran at 0.85-0.91x native
; reading its offsets from the record). After rtlib is inlined, the kernel
; reads the grid only through that argument, marks no load invariant (the
; kernel's own local buffer argument comes just before the grid, and its load
; must stay an ordinary one), and keeps no scheduling context in memory, even
; where a built-in's dimension is known only at run time (dyn: rtlib picks the
; field as an element of a vector value, not through a phi of addresses).
; From (as the JIT's front end compiles on SPIR):
;   kernel void k(global const int *in, global int *out, local int *scratch)
;   {
;   	size_t l = get_local_id(0);
;   	scratch[l] = in[get_global_id(0)];
;   	barrier(CLK_LOCAL_MEM_FENCE);
;   	if (l == 0)
;   		out[get_group_id(0)] = scratch[get_local_size(0) - 1];
;   }
;   kernel void dyn(uint d, global ulong *out)
;   {
;   	out[get_global_id(0)] = get_num_groups(d) + get_group_id(d) + get_global_size(d);
;   }
;
; RUN: %opt -load-pass-plugin=%plugin -passes=aos-rewrite %s -o - \
; RUN:   | llvm-link-15 - --only-needed %rtlib/aos_rt-spir64.bc -o - \
; RUN:   | %opt -load-pass-plugin=%plugin -S -o - \
; RUN:       -passes='aos-rtlib-internalize,always-inline,function(sroa,early-cse,instcombine,simplifycfg,sroa),globaldce' \
; RUN:   | FileCheck %s --implicit-check-not=invariant.load
;
; CHECK-LABEL: define dso_local spir_kernel void @k(
; CHECK-SAME: i8 addrspace(1)* %aos_vndrange)
; CHECK-LABEL: define dso_local spir_kernel void @aos_direct_k(
; CHECK-SAME: i32 addrspace(3)* {{.*}}%[[LOCAL:[0-9]+]], %struct.aos_direct_grid* nocapture noundef readonly byval(%struct.aos_direct_grid) align 8 %aos_grid) {{.*}}!kernel_arg_addr_space ![[KAS:[0-9]+]] {{.*}}!kernel_arg_type ![[KTY:[0-9]+]]
; CHECK-NEXT: entry:
; CHECK-NOT: alloca
; CHECK: getelementptr inbounds %struct.aos_direct_grid, %struct.aos_direct_grid* %aos_grid, i64 0, i32 3, i64 0
; CHECK: load i32, i32 addrspace(1)* %{{[0-9]+}}, align 4, !tbaa !{{[0-9]+}}{{$}}
; CHECK: call spir_func void @_Z7barrierj
; CHECK: load i32, i32 addrspace(3)* %{{[0-9]+}}, align 4, !tbaa !{{[0-9]+}}{{$}}
; CHECK: ret void
; CHECK-LABEL: define dso_local spir_kernel void @aos_direct_dyn(
; CHECK-SAME: i32 noundef %0, i64 addrspace(1)* {{.*}}%1, %struct.aos_direct_grid* nocapture noundef readonly byval(%struct.aos_direct_grid) align 8 %aos_grid)
; CHECK-NEXT: entry:
; CHECK-NOT: alloca
; CHECK-NOT: phi
; CHECK: extractelement <4 x i64>
; CHECK-NOT: alloca
; CHECK-NOT: phi
; CHECK: ret void
; CHECK-DAG: ![[KAS]] = !{i32 1, i32 1, i32 3, i32 0}
; CHECK-DAG: ![[KTY]] = !{!"int*", !"int*", !"int*", !"struct aos_direct_grid"}
; ModuleID = 'k.cl'
source_filename = "k.cl"
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64"

; Function Attrs: convergent norecurse nounwind
define dso_local spir_kernel void @k(i32 addrspace(1)* nocapture noundef readonly align 4 %0, i32 addrspace(1)* nocapture noundef writeonly align 4 %1, i32 addrspace(3)* nocapture noundef align 4 %2) local_unnamed_addr #0 !kernel_arg_addr_space !4 !kernel_arg_access_qual !5 !kernel_arg_type !6 !kernel_arg_base_type !6 !kernel_arg_type_qual !7 !kernel_arg_name !8 {
  %4 = tail call spir_func i64 @_Z12get_local_idj(i32 noundef 0) #4
  %5 = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #4
  %6 = getelementptr inbounds i32, i32 addrspace(1)* %0, i64 %5
  %7 = load i32, i32 addrspace(1)* %6, align 4, !tbaa !9
  %8 = getelementptr inbounds i32, i32 addrspace(3)* %2, i64 %4
  store i32 %7, i32 addrspace(3)* %8, align 4, !tbaa !9
  tail call spir_func void @_Z7barrierj(i32 noundef 1) #5
  %9 = icmp eq i64 %4, 0
  br i1 %9, label %10, label %17

10:                                               ; preds = %3
  %11 = tail call spir_func i64 @_Z14get_local_sizej(i32 noundef 0) #4
  %12 = add i64 %11, -1
  %13 = getelementptr inbounds i32, i32 addrspace(3)* %2, i64 %12
  %14 = load i32, i32 addrspace(3)* %13, align 4, !tbaa !9
  %15 = tail call spir_func i64 @_Z12get_group_idj(i32 noundef 0) #4
  %16 = getelementptr inbounds i32, i32 addrspace(1)* %1, i64 %15
  store i32 %14, i32 addrspace(1)* %16, align 4, !tbaa !9
  br label %17

17:                                               ; preds = %10, %3
  ret void
}

; Function Attrs: convergent mustprogress nofree nounwind readnone willreturn
declare dso_local spir_func i64 @_Z12get_local_idj(i32 noundef) local_unnamed_addr #1

; Function Attrs: convergent mustprogress nofree nounwind readnone willreturn
declare dso_local spir_func i64 @_Z13get_global_idj(i32 noundef) local_unnamed_addr #1

; Function Attrs: convergent
declare dso_local spir_func void @_Z7barrierj(i32 noundef) local_unnamed_addr #2

; Function Attrs: convergent mustprogress nofree nounwind readnone willreturn
declare dso_local spir_func i64 @_Z14get_local_sizej(i32 noundef) local_unnamed_addr #1

; Function Attrs: convergent mustprogress nofree nounwind readnone willreturn
declare dso_local spir_func i64 @_Z12get_group_idj(i32 noundef) local_unnamed_addr #1

; Function Attrs: argmemonly convergent mustprogress nofree norecurse nounwind willreturn writeonly
define dso_local spir_kernel void @dyn(i32 noundef %0, i64 addrspace(1)* nocapture noundef writeonly align 8 %1) local_unnamed_addr #3 !kernel_arg_addr_space !13 !kernel_arg_access_qual !14 !kernel_arg_type !15 !kernel_arg_base_type !15 !kernel_arg_type_qual !16 !kernel_arg_name !17 {
  %3 = tail call spir_func i64 @_Z14get_num_groupsj(i32 noundef %0) #4
  %4 = tail call spir_func i64 @_Z12get_group_idj(i32 noundef %0) #4
  %5 = add i64 %4, %3
  %6 = tail call spir_func i64 @_Z15get_global_sizej(i32 noundef %0) #4
  %7 = add i64 %5, %6
  %8 = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #4
  %9 = getelementptr inbounds i64, i64 addrspace(1)* %1, i64 %8
  store i64 %7, i64 addrspace(1)* %9, align 8, !tbaa !18
  ret void
}

; Function Attrs: convergent mustprogress nofree nounwind readnone willreturn
declare dso_local spir_func i64 @_Z14get_num_groupsj(i32 noundef) local_unnamed_addr #1

; Function Attrs: convergent mustprogress nofree nounwind readnone willreturn
declare dso_local spir_func i64 @_Z15get_global_sizej(i32 noundef) local_unnamed_addr #1

attributes #0 = { convergent norecurse nounwind "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #1 = { convergent mustprogress nofree nounwind readnone willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #2 = { convergent "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #3 = { argmemonly convergent mustprogress nofree norecurse nounwind willreturn writeonly "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #4 = { convergent nounwind readnone willreturn }
attributes #5 = { convergent nounwind }

!llvm.module.flags = !{!0, !1}
!opencl.ocl.version = !{!2}
!opencl.spir.version = !{!2}
!llvm.ident = !{!3}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 7, !"frame-pointer", i32 2}
!2 = !{i32 1, i32 2}
!3 = !{!"Debian clang version 15.0.6"}
!4 = !{i32 1, i32 1, i32 3}
!5 = !{!"none", !"none", !"none"}
!6 = !{!"int*", !"int*", !"int*"}
!7 = !{!"const", !"", !""}
!8 = !{!"in", !"out", !"scratch"}
!9 = !{!10, !10, i64 0}
!10 = !{!"int", !11, i64 0}
!11 = !{!"omnipotent char", !12, i64 0}
!12 = !{!"Simple C/C++ TBAA"}
!13 = !{i32 0, i32 1}
!14 = !{!"none", !"none"}
!15 = !{!"uint", !"ulong*"}
!16 = !{!"", !""}
!17 = !{!"d", !"out"}
!18 = !{!19, !19, i64 0}
!19 = !{!"long", !11, i64 0}
