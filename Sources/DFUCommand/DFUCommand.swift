// DFUCommand
