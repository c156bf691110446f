// DFUSimulator
