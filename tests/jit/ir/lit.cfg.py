# lit configuration for the FileCheck tests of the accelOS passes.
import os

import lit.formats

config.name = 'accelos-passes'
config.test_format = lit.formats.ShTest(True)
config.suffixes = ['.ll']
params = lit_config.params
# Keep lit's Output/ directory in the build tree.
config.test_exec_root = params['exec_root']
config.test_source_root = os.path.dirname(__file__)
config.substitutions.append(('%opt', params['opt']))
config.substitutions.append(('%plugin', params['plugin']))
config.substitutions.append(('%rtlib', params['rtlib']))
config.substitutions.append(('FileCheck', params['filecheck']))
