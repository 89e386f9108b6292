"""The checks of the notebooks' exercises, one module per notebook, kept out of the notebooks so that a learner
does not read a right answer before trying, and so that `tests/` can prove each check rejects plausible wrong
answers (`tests/test_exercises_NN.py`).

A notebook imports its checks as `from exercises.mmr import check_duplicates`; the course's notebooks run with
`notebooks/` as the working directory, so the package is found without installing it. A check takes the
learner's answer (and anything the notebook built that the check needs) and raises `AssertionError` with a
message that says what is wrong with the answer, never what the answer is; it returns "right" otherwise.
"""
