; get_global_id(d) - get_global_offset(d) with the same constant d becomes
; aos_rt_global_id_in_range (the virtual group times the local size plus the
; local id), in the scheduling kernel and in the direct one: natively the
; device's offset cancels there, the record's would not. The offset used on its
; own, and an id less the offset of another dimension, keep the ordinary
; replacements.
; From (as the JIT's front end compiles on SPIR):
;   kernel void k(global ulong *out, global ulong *off)
;   {
;   	size_t x = get_global_id(0) - get_global_offset(0);
;   	size_t y = get_global_id(1) - get_global_offset(0);
;   	out[x] = get_global_offset(0);
;   	off[x] = y;
;   }
;
; RUN: %opt -load-pass-plugin=%plugin -passes=aos-rewrite -S %s -o - | FileCheck %s
;
; CHECK-LABEL: define dso_local spir_kernel void @k(
; CHECK: %[[OFF:[0-9]+]] = call spir_func i64 @aos_rt_global_offset(i8* %{{[0-9]+}}, i32 0)
; CHECK: %[[X:[0-9]+]] = call spir_func i64 @aos_rt_global_id_in_range(i8* %{{[0-9]+}}, i32 0)
; CHECK: %[[Y1:[0-9]+]] = call spir_func i64 @aos_rt_global_id(i8* %{{[0-9]+}}, i32 1)
; CHECK: sub i64 %[[Y1]], %[[OFF]]
; CHECK: getelementptr inbounds i64, i64 addrspace(1)* %0, i64 %[[X]]
; CHECK: store i64 %[[OFF]]
; CHECK-LABEL: define dso_local spir_kernel void @aos_direct_k(
; CHECK: %[[DOFF:[0-9]+]] = call spir_func i64 @aos_rt_global_offset(i8* %{{[0-9]+}}, i32 0)
; CHECK: %[[DX:[0-9]+]] = call spir_func i64 @aos_rt_global_id_in_range(i8* %{{[0-9]+}}, i32 0)
; CHECK: getelementptr inbounds i64, i64 addrspace(1)* %0, i64 %[[DX]]
; CHECK: store i64 %[[DOFF]]
; CHECK-NOT: @_Z17get_global_offsetj(
; CHECK: ret void
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64"

; Function Attrs: argmemonly convergent mustprogress nofree norecurse nounwind willreturn writeonly
define dso_local spir_kernel void @k(i64 addrspace(1)* nocapture noundef writeonly align 8 %0, i64 addrspace(1)* nocapture noundef writeonly align 8 %1) local_unnamed_addr #0 !kernel_arg_addr_space !4 !kernel_arg_access_qual !5 !kernel_arg_type !6 !kernel_arg_base_type !6 !kernel_arg_type_qual !7 {
  %3 = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #2
  %4 = tail call spir_func i64 @_Z17get_global_offsetj(i32 noundef 0) #2
  %5 = sub i64 %3, %4
  %6 = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 1) #2
  %7 = sub i64 %6, %4
  %8 = getelementptr inbounds i64, i64 addrspace(1)* %0, i64 %5
  store i64 %4, i64 addrspace(1)* %8, align 8, !tbaa !8
  %9 = getelementptr inbounds i64, i64 addrspace(1)* %1, i64 %5
  store i64 %7, i64 addrspace(1)* %9, align 8, !tbaa !8
  ret void
}

; Function Attrs: convergent mustprogress nofree nounwind readnone willreturn
declare dso_local spir_func i64 @_Z13get_global_idj(i32 noundef) local_unnamed_addr #1

; Function Attrs: convergent mustprogress nofree nounwind readnone willreturn
declare dso_local spir_func i64 @_Z17get_global_offsetj(i32 noundef) local_unnamed_addr #1

attributes #0 = { argmemonly convergent mustprogress nofree norecurse nounwind willreturn writeonly "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #1 = { convergent mustprogress nofree nounwind readnone willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #2 = { convergent nounwind readnone willreturn }

!llvm.module.flags = !{!0, !1}
!opencl.ocl.version = !{!2}
!opencl.spir.version = !{!2}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 7, !"frame-pointer", i32 2}
!2 = !{i32 1, i32 2}
!4 = !{i32 1, i32 1}
!5 = !{!"none", !"none"}
!6 = !{!"ulong*", !"ulong*"}
!7 = !{!"", !""}
!8 = !{!9, !9, i64 0}
!9 = !{!"long", !10, i64 0}
!10 = !{!"omnipotent char", !11, i64 0}
!11 = !{!"Simple C/C++ TBAA"}
