; Device-side enqueue: the kernel is left unchanged and the reason recorded.
; RUN: %opt -load-pass-plugin=%plugin -passes=aos-rewrite -S %s -o - | FileCheck %s
;
; CHECK: define dso_local spir_kernel void @p(i32 addrspace(1)* noundef align 4 %0)
; CHECK-NOT: aos_vndrange
; CHECK-NOT: @aos_rt_
; CHECK: !accelos.kernels = !{![[A:[0-9]+]], ![[B:[0-9]+]]}
; CHECK-DAG: ![[A]] = !{!"p", i32 0, i32 0, i32 {{[0-9]+}}, !"device-side enqueue"}
; CHECK-DAG: ![[B]] = !{!"__p_block_invoke_kernel", i32 0, i32 0, i32 {{[0-9]+}}, !"kernel is called or referenced from other code"}
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64"

%struct.ndrange_t = type { i32, [3 x i64], [3 x i64], [3 x i64] }
%opencl.queue_t = type opaque

; Function Attrs: convergent norecurse nounwind
define dso_local spir_kernel void @p(i32 addrspace(1)* noundef align 4 %0) local_unnamed_addr #0 !kernel_arg_addr_space !4 !kernel_arg_access_qual !5 !kernel_arg_type !6 !kernel_arg_base_type !6 !kernel_arg_type_qual !7 !kernel_arg_name !8 {
  %2 = alloca %struct.ndrange_t, align 8
  %3 = alloca <{ i32, i32, i8 addrspace(4)*, i32 addrspace(1)* }>, align 8
  %4 = tail call spir_func %opencl.queue_t* @_Z17get_default_queuev() #4
  call spir_func void @_Z10ndrange_1Dm(%struct.ndrange_t* nonnull sret(%struct.ndrange_t) align 8 %2, i64 noundef 4) #4
  %5 = getelementptr inbounds <{ i32, i32, i8 addrspace(4)*, i32 addrspace(1)* }>, <{ i32, i32, i8 addrspace(4)*, i32 addrspace(1)* }>* %3, i64 0, i32 0
  store i32 24, i32* %5, align 8
  %6 = getelementptr inbounds <{ i32, i32, i8 addrspace(4)*, i32 addrspace(1)* }>, <{ i32, i32, i8 addrspace(4)*, i32 addrspace(1)* }>* %3, i64 0, i32 1
  store i32 8, i32* %6, align 4
  %7 = getelementptr inbounds <{ i32, i32, i8 addrspace(4)*, i32 addrspace(1)* }>, <{ i32, i32, i8 addrspace(4)*, i32 addrspace(1)* }>* %3, i64 0, i32 2
  store i8 addrspace(4)* addrspacecast (i8* bitcast (void (i8 addrspace(4)*)* @__p_block_invoke to i8*) to i8 addrspace(4)*), i8 addrspace(4)** %7, align 8
  %8 = getelementptr inbounds <{ i32, i32, i8 addrspace(4)*, i32 addrspace(1)* }>, <{ i32, i32, i8 addrspace(4)*, i32 addrspace(1)* }>* %3, i64 0, i32 3
  store i32 addrspace(1)* %0, i32 addrspace(1)** %8, align 8, !tbaa !9
  %9 = bitcast <{ i32, i32, i8 addrspace(4)*, i32 addrspace(1)* }>* %3 to i8*
  %10 = addrspacecast i8* %9 to i8 addrspace(4)*
  %11 = call spir_func i32 @__enqueue_kernel_basic(%opencl.queue_t* %4, i32 0, %struct.ndrange_t* nonnull byval(%struct.ndrange_t) %2, i8 addrspace(4)* addrspacecast (i8* bitcast (void (i8 addrspace(4)*)* @__p_block_invoke_kernel to i8*) to i8 addrspace(4)*), i8 addrspace(4)* %10) #5
  ret void
}

; Function Attrs: convergent
declare dso_local spir_func %opencl.queue_t* @_Z17get_default_queuev() local_unnamed_addr #1

; Function Attrs: convergent
declare dso_local spir_func void @_Z10ndrange_1Dm(%struct.ndrange_t* sret(%struct.ndrange_t) align 8, i64 noundef) local_unnamed_addr #1

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn
define internal spir_func void @__p_block_invoke(i8 addrspace(4)* nocapture noundef readonly %0) #2 {
  %2 = getelementptr inbounds i8, i8 addrspace(4)* %0, i64 16
  %3 = bitcast i8 addrspace(4)* %2 to i32 addrspace(1)* addrspace(4)*
  %4 = load i32 addrspace(1)*, i32 addrspace(1)* addrspace(4)* %3, align 8, !tbaa !9
  store i32 1, i32 addrspace(1)* %4, align 4, !tbaa !13
  ret void
}

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn
define spir_kernel void @__p_block_invoke_kernel(i8 addrspace(4)* nocapture readonly %0) #3 {
  %2 = getelementptr inbounds i8, i8 addrspace(4)* %0, i64 16
  %3 = bitcast i8 addrspace(4)* %2 to i32 addrspace(1)* addrspace(4)*
  %4 = load i32 addrspace(1)*, i32 addrspace(1)* addrspace(4)* %3, align 8, !tbaa !9
  store i32 1, i32 addrspace(1)* %4, align 4, !tbaa !13
  ret void
}

declare dso_local spir_func i32 @__enqueue_kernel_basic(%opencl.queue_t*, i32, %struct.ndrange_t*, i8 addrspace(4)*, i8 addrspace(4)*) local_unnamed_addr

attributes #0 = { convergent norecurse nounwind "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="false" }
attributes #1 = { convergent "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #2 = { mustprogress nofree norecurse nosync nounwind willreturn "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #3 = { mustprogress nofree norecurse nosync nounwind willreturn }
attributes #4 = { convergent nounwind }
attributes #5 = { nounwind }

!llvm.module.flags = !{!0, !1}
!opencl.ocl.version = !{!2}
!opencl.spir.version = !{!2}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 7, !"frame-pointer", i32 2}
!2 = !{i32 2, i32 0}
!3 = !{!"Debian clang version 15.0.6"}
!4 = !{i32 1}
!5 = !{!"none"}
!6 = !{!"int*"}
!7 = !{!""}
!8 = !{!"o"}
!9 = !{!10, !10, i64 0}
!10 = !{!"any pointer", !11, i64 0}
!11 = !{!"omnipotent char", !12, i64 0}
!12 = !{!"Simple C/C++ TBAA"}
!13 = !{!14, !14, i64 0}
!14 = !{!"int", !11, i64 0}
