#!/usr/bin/env sh
# Create bench/llamaindex/.venv with the pinned LlamaIndex baseline (PyPI only; no model hub:
# the baseline reuses the MiniLM ONNX file citetrace provisions into ~/.cache/citetrace/models).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-python3.11}
"$python" -c 'import sys; assert sys.version_info[:2] == (3, 11), "Python 3.11 expected, got " + sys.version' 
[ -x "$here/.venv/bin/python" ] || "$python" -m venv "$here/.venv"
"$here/.venv/bin/python" -m pip install --quiet --upgrade pip
"$here/.venv/bin/python" -m pip install --quiet -r "$here/requirements.txt"
"$here/.venv/bin/python" -c 'import llama_index.core, llama_index.retrievers.bm25, onnxruntime, tokenizers; print("llamaindex baseline ready:", llama_index.core.__version__)'
