@echo off
rem Set up the inventory service on Windows
python -m venv .venv
.venv\Scripts\pip install -r requirements.txt
echo done
