// HostVectorMath.h - the vector math of the running machine's glibc (libmvec), offered to LLVM's
// loop vectorizer for host code.
#ifndef DPK_COMPILER_HOSTVECTORMATH_H
#define DPK_COMPILER_HOSTVECTORMATH_H

namespace llvm {
class TargetLibraryInfoImpl;
}

namespace dpk::compiler {

/// Adds the libmvec functions that LLVM 15's own LIBMVEC_X86 table lacks (erf, tan, atan2, ...)
/// and that this process's libmvec.so.1 exports. Host code is compiled for and run on the
/// same machine, so a function is offered only when its vector symbol resolves here.
void addGlibcVectorMath(llvm::TargetLibraryInfoImpl &info);

} // namespace dpk::compiler

#endif
