# lit configuration shared by test/compiler and test/e2e.
import os
import shutil
import lit.formats

config.name = "Flow"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".flow", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "runtime", "run_lit.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.flow_obj_root, "test")

# FileCheck and `not` come from LLVM 14's tools.
config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, os.path.dirname(config.flowc), config.environment.get("PATH", os.environ["PATH"])])
config.substitutions.append(("%flowc", config.flowc))
config.substitutions.append(("%python", config.python))
config.substitutions.append(("%flow-import-dump", os.path.join(os.path.dirname(config.flowc), "tools", "flow-import-dump")))
config.substitutions.append(("%examples", os.path.join(config.flow_src_root, "examples")))
config.substitutions.append(("%srcroot", config.flow_src_root))
# Open MPI's launcher for the distributed tests: more ranks than cores, root in CI, and a
# session folder of each mpirun's own (e2e/Inputs/distributed/mpirun.py says why).
config.substitutions.append(("%mpirun", config.python + " " + os.path.join(
    config.flow_src_root, "test", "e2e", "Inputs", "distributed", "mpirun.py")))
config.substitutions.append(("%objroot", config.flow_obj_root))
# test/editors: the editor grammars' checkers, which scripts/setup.sh installs (the npm tool
# into build-tools/, vim from Debian). Named so that no lit default (%t, %s) is a prefix.
config.substitutions.append(("%vscode-tmgrammar-test", os.path.join(
    config.flow_src_root, "build-tools", "node_modules", ".bin", "vscode-tmgrammar-test")))
config.substitutions.append(("%vim", shutil.which("vim") or "vim"))
config.substitutions.append(("%nvim", shutil.which("nvim") or "nvim"))

# flowc's cache (the precompiled runtime every test's build shares; `flowc run`'s programs)
# lives in the build tree, not in the home folder of whoever runs the tests.
config.environment["FLOW_CACHE_DIR"] = os.path.join(config.flow_obj_root, "test", "flow-cache")

# `lit --param flow_build_jobs=N`: flowc build and run compile a program in up to N parts at
# once (FLOW_BUILD_JOBS). 1 by default: lit already runs a test on every core, and a parts
# build costs more CPU in all (each part loads the precompiled runtime). ctest's lit-ubsan
# builds in parts.
config.environment["FLOW_BUILD_JOBS"] = lit_config.params.get("flow_build_jobs", "1")

# `lit --param flow_threads=N`: every program runs at N threads where its RUN line gives no
# --threads (FLOW_THREADS), so the whole suite checks its outputs at another thread count.
if lit_config.params.get("flow_threads"):
    config.environment["FLOW_THREADS"] = lit_config.params["flow_threads"]

# `lit --param flow_cxxflags=FLAGS`: every program that flowc builds gets FLAGS too (flowc
# build and run read them from CXXFLAGS). ctest's lit-ubsan runs test/e2e so, with the
# undefined behaviour sanitizer; its results go to a directory of their own, so that it can
# run beside the plain suite.
flow_cxxflags = lit_config.params.get("flow_cxxflags")
if flow_cxxflags:
    config.environment["CXXFLAGS"] = flow_cxxflags
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1"
    config.name = "Flow (CXXFLAGS=%s)" % flow_cxxflags
    config.test_exec_root = os.path.join(config.flow_obj_root, "test-cxxflags")
