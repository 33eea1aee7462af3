"""Array API consumers on dpk arrays: scikit-learn (array_api_dispatch) and SciPy
(SCIPY_ARRAY_API=1) find the dpk namespace through array_api_compat, keep results on the
input's device and give NumPy's answers. Skipped when they are not installed."""

import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import DEVICE_FILTERS

SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import array_api_compat
    import scipy.cluster.vq, scipy.special, scipy.stats
    from sklearn import config_context
    from sklearn.decomposition import PCA
    from sklearn.linear_model import Ridge
    from sklearn.metrics import r2_score
    from sklearn.preprocessing import MaxAbsScaler, MinMaxScaler, StandardScaler, normalize
    import dpk

    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 5))
    checks = [
        ("MinMaxScaler", lambda x: MinMaxScaler().fit_transform(x)),
        ("MaxAbsScaler", lambda x: MaxAbsScaler().fit_transform(x)),
        ("StandardScaler", lambda x: StandardScaler().fit_transform(x)),
        ("normalize", lambda x: normalize(x)),
        ("PCA", lambda x: abs(PCA(n_components=2, svd_solver="full").fit_transform(x))),
        ("Ridge", lambda x: Ridge(alpha=1.0, solver="svd").fit(x, x[:, 2]).predict(x)),
        ("r2_score", lambda x: r2_score(x[:, 0], x[:, 1])),
        ("logsumexp", lambda x: scipy.special.logsumexp(x, axis=0)),
        ("softmax", lambda x: scipy.special.softmax(x, axis=1)),
        ("zscore", lambda x: scipy.stats.zscore(x, axis=0)),
        ("moment", lambda x: scipy.stats.moment(x, order=3, axis=0)),
        ("whiten", lambda x: scipy.cluster.vq.whiten(x)),
    ]
    failures = []
    for device in sys.argv[1:]:
        d = dpk.asarray(X, device=device)
        assert array_api_compat.array_namespace(d) is dpk
        for name, fn in checks:
            with config_context(array_api_dispatch=False):
                ref = np.asarray(fn(X))
            with config_context(array_api_dispatch=True):
                out = fn(d)
            if isinstance(out, dpk.Array) and out.device is not d.device:
                failures.append(f"{device} {name}: result on {out.device}")
            if not np.allclose(np.asarray(out), ref, atol=1e-8):
                failures.append(f"{device} {name}: values differ")
    print("FAILURES", failures)
""")


@pytest.mark.skipif(not all(importlib.util.find_spec(m) for m in
                            ("sklearn", "scipy", "array_api_compat")),
                    reason="scikit-learn, SciPy and array-api-compat are not installed")
def test_sklearn_and_scipy_on_every_device(tmp_path):
    script = tmp_path / "consumers.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    run = subprocess.run([sys.executable, str(script)] + DEVICE_FILTERS, env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "FAILURES []" in run.stdout, run.stdout
