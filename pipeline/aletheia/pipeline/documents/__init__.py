"""Reading documents: bibliographies from files and PDFs (in a sandboxed child), and papers' full text."""
