/*
 * merge_strategies.h -- the merge strategies' table and switch (merge/merge.h,
 * merge/strategies.c) as module functions, for _encode and _pipeline: each extension
 * holds its own copy of the merge engine, so each is told; the Python side
 * (bpe_gui.engine.tokenizers.strategies) tells both. Included once per module file.
 */
#ifndef BPE_PYTHON_MERGE_STRATEGIES_H
#define BPE_PYTHON_MERGE_STRATEGIES_H

#include <Python.h>

#include "merge/merge.h"

/* merge_strategies() -> [(name, needs, applies, invariant, runs_here)], the reference
 * first (needs: the instruction set, "" for none) */
static PyObject *merge_strategies_py(PyObject *mod, PyObject *unused)
{
    (void)mod, (void)unused;
    PyObject *out = PyList_New(0);
    for (int s = MT_REFERENCE; out && s < MT_N_STRATEGIES; s++) {
        const MtStrategy *t = &mt_strategies[s];
        PyObject *row = Py_BuildValue("(ssssO)", t->name, t->needs, t->applies, t->invariant,
                                      mt_strategy_runs_here(s) ? Py_True : Py_False);
        if (!row || PyList_Append(out, row) < 0) {
            Py_XDECREF(row);
            Py_CLEAR(out);
            break;
        }
        Py_DECREF(row);
    }
    return out;
}

/* set_merge_strategy(name) -> the name before: "auto" or a strategy's, for tables made
 * from now on. ValueError: no such strategy, or this build or CPU cannot run it. */
static PyObject *set_merge_strategy_py(PyObject *mod, PyObject *arg)
{
    (void)mod;
    const char *name = PyUnicode_AsUTF8(arg);
    if (!name)
        return NULL;
    int s = mt_strategy_by_name(name);
    if (s < 0)
        return PyErr_Format(PyExc_ValueError, "no merge strategy named %R", arg);
    if (!mt_strategy_runs_here(s))
        return PyErr_Format(PyExc_ValueError,
                            "merge strategy %R needs an instruction set this CPU or build "
                            "lacks", arg);
    return PyUnicode_FromString(mt_strategies[mt_strategy_set(s)].name);
}

/* merge_strategy_used() -> {name: words}: the words each strategy merged for tables
 * made while one was forced (this extension's count) */
static PyObject *merge_strategy_used_py(PyObject *mod, PyObject *unused)
{
    (void)mod, (void)unused;
    PyObject *out = PyDict_New();
    for (int s = MT_REFERENCE; out && s < MT_N_STRATEGIES; s++) {
        PyObject *v = PyLong_FromUnsignedLongLong(mt_strategy_used(s));
        if (!v || PyDict_SetItemString(out, mt_strategies[s].name, v) < 0)
            Py_CLEAR(out);
        Py_XDECREF(v);
    }
    return out;
}

#define MERGE_STRATEGY_METHODS                                                                \
    {"merge_strategies", merge_strategies_py, METH_NOARGS,                                    \
     "merge_strategies() -> [(name, needs, applies, invariant, runs_here)]"},                 \
    {"set_merge_strategy", set_merge_strategy_py, METH_O,                                     \
     "set_merge_strategy(name) -> the name before ('auto': the cheapest that applies)"},      \
    {"merge_strategy_used", merge_strategy_used_py, METH_NOARGS,                              \
     "merge_strategy_used() -> {name: words merged by it while forced}"}

/* At import: BPE_GUI_MERGE forces a strategy for the whole process. -1 (an exception set):
 * it names none, or one this CPU cannot run. */
static int merge_strategy_from_env(void)
{
    const char *bad;
    int r = mt_strategy_from_env(&bad);
    if (r == 0)
        return 0;
    PyObject *names = PyList_New(0);
    for (int s = MT_REFERENCE; names && s < MT_N_STRATEGIES; s++) {
        PyObject *v = PyUnicode_FromString(mt_strategies[s].name);
        if (!v || PyList_Append(names, v) < 0)
            Py_CLEAR(names);
        Py_XDECREF(v);
    }
    if (names) {
        PyObject *sep = PyUnicode_FromString(", ");
        PyObject *joined = sep ? PyUnicode_Join(sep, names) : NULL;
        if (joined)
            PyErr_Format(PyExc_ValueError,
                         r == -1 ? "BPE_GUI_MERGE=%s names no merge strategy (known: %U); "
                                   "unset it or pick one of those"
                                 : "BPE_GUI_MERGE=%s needs an instruction set this CPU or "
                                   "build lacks (strategies: %U); unset it or pick another",
                         bad, joined);
        Py_XDECREF(joined);
        Py_XDECREF(sep);
        Py_DECREF(names);
    }
    return -1;
}

#endif
