print("mailsearch")
